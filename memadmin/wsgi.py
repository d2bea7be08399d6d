import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings")
application = get_wsgi_application()

# The readers' dictionaries load as the server starts, not in a person's first decision
# that judges a pair again (a follow-up conflict).
from memadmin.curation.detection.reading.clause import warm_up  # noqa: E402

warm_up(("en", "de", "fr"))
