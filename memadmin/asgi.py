"""The whole app for an ASGI server (`uvicorn memadmin.asgi:application`): the review
pages and the JSON API through Django, and the MCP server's Streamable HTTP endpoints at
/mcp/<namespace>/ (api.mcp_http)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
django_app = get_asgi_application()  # sets Django up before the app's modules load

from memadmin.api.mcp_http import McpRouter, mcp_app  # noqa: E402
from memadmin.curation.detection.reading.clause import warm_up  # noqa: E402

# The readers' dictionaries load as the server starts, not in a person's first decision
# that judges a pair again (a follow-up conflict).
warm_up(("en", "de", "fr"))

application = McpRouter(django_app, mcp_app())
