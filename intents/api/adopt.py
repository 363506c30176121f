"""``POST /api/fabrics/adopt/``: adopt a running fabric from an uploaded archive of its configs (intents/adopt.py).

The upload is read with the same bounded reader as ``POST /api/validation-runs/configs/`` (the request's declared
length, the archive's size, then compiler.parse.files' member, total and line limits), never a directory on the
server. ``dry_run`` (default false) answers the adoption report and saves nothing; otherwise everything is saved
in one transaction and the answer is 201. A hostile or partial set is a 400 naming file and line; nothing is saved.
``netbox`` (default false) joins the adoption with the server's own NetBox (FT_NETBOX_URL / FT_NETBOX_TOKEN, as the
NetBox sync): a caller never names a URL the server would send its token to, so ``netbox_url`` is refused.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_limits import upload_request_check
from compiler.parse.files import configs_from_archive, upload_size_check

from ..adopt import adoption_netbox_client, fabric_adopt


class FabricAdoptSerializer(serializers.Serializer):
    archive = serializers.FileField(help_text=".tar, .tar.gz or .zip of <device>/<files> or one file per device")
    name = serializers.CharField(max_length=100, default="adopted", help_text="Fabric and intent name")
    dry_run = serializers.BooleanField(default=False, help_text="Answer the report; save nothing")
    netbox = serializers.BooleanField(default=False, help_text="Join with the server's NetBox (FT_NETBOX_URL): "
                                                              "agreements adopted, contradictions refused")
    netbox_url = serializers.CharField(max_length=200, required=False, allow_blank=True,
                                       help_text="Refused when given: the join reads the server's own NetBox only")


class FabricAdoptView(APIView):
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema(request={"multipart/form-data": FabricAdoptSerializer}, responses={200: dict, 201: dict})
    def post(self, request):
        upload_request_check(request)  # before Django spools the files to disk
        params = FabricAdoptSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        options = params.validated_data
        archive = options["archive"]
        upload_size_check("archive", archive.name, archive.size)  # before it is read into memory
        netbox_client = adoption_netbox_client(netbox=options["netbox"], netbox_url=options.get("netbox_url") or "")  # before the upload is read
        device_files = configs_from_archive(archive.read(), archive.name)
        outcome = fabric_adopt(device_files=device_files, name=options["name"],
                               netbox_data=netbox_client.dump() if netbox_client else None, dry_run=options["dry_run"])
        return Response(outcome.as_dict(), status=status.HTTP_200_OK if outcome.dry_run else status.HTTP_201_CREATED)

