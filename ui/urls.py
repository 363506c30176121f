from django.contrib.auth import views as auth_views
from django.urls import path, register_converter

from .converters import NameConverter
from .views import (
    account,
    adopt,
    collective,
    configs,
    dashboard,
    intents,
    inventory,
    rollouts,
    search,
    topology,
    twin,
    validation,
)

app_name = "ui"
register_converter(NameConverter, "name")  # object names: any character, "/" included, never a 500

urlpatterns = [
    path("", dashboard.dashboard, name="dashboard"),
    # log in / log out: Django's views with our templates (settings.LOGIN_URL is /login/)
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("account/tokens/", account.token_list, name="token_list"),
    path("search/", search.search, name="search"),
    path("history/<str:object_type>/<int:object_id>/", search.history, name="history"),
    # fabrics and inventory
    path("fabrics/", inventory.fabric_list, name="fabric_list"),
    path("fabrics/build/", inventory.fabric_build, name="fabric_build"),
    path("fabrics/adopt/", adopt.fabric_adopt_page, name="fabric_adopt"),
    path("fabrics/<name:name>/", inventory.fabric_detail, name="fabric_detail"),
    path("fabrics/<name:name>/topology/", topology.topology, name="topology"),
    path("fabrics/<name:name>/topology/link/", topology.topology_link, name="topology_link"),
    path("fabrics/<name:name>/collective/", collective.collective, name="collective"),
    path("topology/", topology.topology_pick, name="topology_pick"),
    path("inventory/racks/", inventory.rack_list, name="rack_list"),
    path("inventory/racks/<int:pk>/", inventory.rack_detail, name="rack_detail"),
    path("inventory/rows/<name:site>/<name:row>/", inventory.rack_row, name="rack_row"),
    path("inventory/switches/", inventory.switch_list, name="switch_list"),
    path("inventory/switches/<name:hostname>/", inventory.switch_detail, name="switch_detail"),
    path("inventory/interfaces/", inventory.interface_list, name="interface_list"),
    path("inventory/interfaces/<int:pk>/", inventory.interface_detail, name="interface_detail"),
    path("inventory/optics/", inventory.optic_list, name="optic_list"),
    path("inventory/optics/<int:pk>/", inventory.optic_detail, name="optic_detail"),
    path("inventory/cables/", inventory.cable_list, name="cable_list"),
    path("inventory/cables/<int:pk>/", inventory.cable_detail, name="cable_detail"),
    path("inventory/cables/<int:pk>/edit/", inventory.cable_edit, name="cable_edit"),
    path("inventory/servers/", inventory.server_list, name="server_list"),
    path("inventory/servers/<name:name>/", inventory.server_detail, name="server_detail"),
    path("inventory/servers/<name:name>/host/<name:file>", inventory.server_host_file, name="server_host_file"),
    # intents
    path("intents/", intents.intent_list, name="intent_list"),
    path("intents/new/", intents.intent_create, name="intent_create"),
    path("intents/<name:name>/", intents.intent_detail, name="intent_detail"),
    path("intents/<name:name>/compile/", intents.intent_compile, name="intent_compile"),
    path("intents/<name:name>/settings/", intents.object_edit, {"kind": "settings", "pk": 0}, name="intent_settings"),
    path("intents/<name:name>/roce-defaults/", intents.roce_defaults, name="roce_defaults"),
    path("intents/<name:name>/<str:kind>/new/", intents.object_edit, name="intent_object_create"),
    path("intents/<name:name>/<str:kind>/<int:pk>/", intents.object_edit, name="intent_object_edit"),
    path("intents/<name:name>/<str:kind>/<int:pk>/delete/", intents.object_delete, name="intent_object_delete"),
    path("intents/<name:name>/<str:kind>/preview/", intents.object_preview, name="intent_object_preview"),
    # configs
    path("configs/", configs.config_pick, name="config_pick"),
    path("configs/<name:name>/", configs.config_list, name="config_list"),
    path("configs/<name:name>/<name:hostname>/", configs.config_detail, name="config_detail"),
    # validation
    path("validation/", validation.validation_pick, name="validation_pick"),
    path("validate-configs/", validation.validation_configs, name="validation_configs"),
    path("validation/<name:name>/", validation.validation_report, name="validation_report"),
    path("validation/<name:name>/run/", validation.validation_run, name="validation_run"),
    # twin
    path("twin/", twin.twin_pick, name="twin_pick"),
    path("twin/<name:name>/", twin.twin_detail, name="twin_detail"),
    path("twin/<name:name>/status/", twin.twin_status_partial, name="twin_status"),
    path("twin/<name:name>/<str:action>/", twin.twin_action, name="twin_action"),
    # rollouts
    path("rollouts/", rollouts.rollout_list, name="rollout_list"),
    path("rollouts/new/", rollouts.rollout_create, name="rollout_create"),
    path("rollouts/<int:pk>/", rollouts.rollout_detail, name="rollout_detail"),
    path("rollouts/<int:pk>/progress/", rollouts.rollout_progress, name="rollout_progress"),
    path("rollouts/<int:pk>/<str:action>/", rollouts.rollout_action, name="rollout_action"),
    path("drift/", rollouts.drift_list, name="drift_list"),
]

