"""Collective traffic of one job on a fabric (issue #32): the per-tier link-load heat map and the what-ifs side
by side. A GET form; the prediction is validation.services.collective_predict (the API's, one home), and the
form's fields are the API request's (validation.api.serializers.CollectiveRequestSerializer), so both refuse the
same input with the same field-named messages. Nothing is stored.
Viewers see the form; running a prediction needs the operate capability, as the API's POST does."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.shortcuts import render

from common.roles import OPERATE, capability_refusal, perm
from compiler.errors import FabricTwinError, InputError
from inventory import selectors as inventory_selectors
from ui import svg
from validation import services as validation_services
from validation.api.serializers import CollectiveRequestSerializer
from validators.collective import COLLECTIVES, HashFields, HashFunction

from .common import fabric_or_404, viewer

FORM_DEFAULTS = {"gpus": "", "collective": "ring-allreduce", "qps": "1", "channels": "0", "hash_function":
                 HashFunction.CRC16_CCITT, "hash_fields": HashFields.FIVE_TUPLE, "hash_seed": "0", "trials": "8",
                 "limit": "1.1", "what_if_qps": "16"}
FORM_FIELDS = (*FORM_DEFAULTS, "distinct_seeds", "dlb")


@viewer
def collective(request, name: str):
    fabric = fabric_or_404(name)
    values = {field: request.GET.get(field, FORM_DEFAULTS.get(field, ""))[:200] for field in FORM_FIELDS}
    context = {"section": "topology", "title": f"Collective traffic · {fabric.name}", "fabric": fabric,
               "fabrics": inventory_selectors.fabric_names(), "values": values,
               "collectives": COLLECTIVES, "hash_functions": HashFunction.ALL, "hash_fields": HashFields.ALL,
               "errors": {}, "result": None}
    status = 200
    if request.GET.get("gpus"):
        # a prediction spends CPU on request: operators run it, as the API's POST (common/policy.py)
        if not request.user.has_perm(perm(OPERATE)):
            raise PermissionDenied(capability_refusal(OPERATE, "run a collective prediction"))
        params = CollectiveRequestSerializer(data={field: value for field, value in values.items()
                                                   if value != "" and field in request.GET})
        if not params.is_valid():
            context["errors"], status = {field: [str(message) for message in messages]
                                         for field, messages in params.errors.items()}, 400
        else:
            try:
                result = validation_services.collective_predict(fabric=fabric, options=params.validated_data)
            except InputError as error:
                context["errors"], status = error.as_dict(), 400
            except FabricTwinError as error:
                context["errors"], status = {"non_field_errors": [str(error)]}, 400
            else:
                context["result"] = result
                context["heatmap"] = svg.link_heatmap_svg(result["link_loads"])
                context["heat_scale"] = svg.HEAT_SCALE
    return render(request, "ui/collective.html", context, status=status)
