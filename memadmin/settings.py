"""memadmin settings: one file, every knob read from the environment through typed helpers.

The README's settings reference lists every variable read here.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (1/0, true/false), not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_float(name: str, default: float, *, low: float = 0.0, high: float = 1.0) -> float:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if not low <= value <= high:
        raise ImproperlyConfigured(f"{name} must be between {low} and {high}, not {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def database_from_url(url: str) -> dict:
    """Django DATABASES entry from a postgresql:// URL (a `host` query parameter may name a
    Unix-socket folder, as the embedded server's URL does)."""
    parts = urlsplit(url)
    if parts.scheme not in ("postgres", "postgresql"):
        raise ImproperlyConfigured(f"DATABASE_URL must be a postgresql:// URL, not {url!r}")
    query = dict(parse_qsl(parts.query))
    host = query.pop("host", None) or parts.hostname or ""
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": unquote(parts.path.lstrip("/")) or "postgres",
        "USER": unquote(parts.username or ""),
        "PASSWORD": unquote(parts.password or ""),
        "HOST": host,
        "PORT": str(parts.port or ""),
        "OPTIONS": query,
        # 0: every request closes its connection. runserver (and threaded servers) start a
        # thread per request, and a connection kept for a thread that ends is never
        # reused: with 60 s, 88 idle connections piled up under load. A long-lived server
        # process with a fixed pool of threads (gunicorn --threads) may raise it.
        "CONN_MAX_AGE": env_int("MEMADMIN_CONN_MAX_AGE", 0, minimum=0),
        "CONN_HEALTH_CHECKS": True,
        "TEST": {"NAME": "test_memadmin"},
    }


def secret_key_from_file(path: Path) -> str:
    """A random key made once per installation and kept beside the data, so a fresh
    machine needs no configuration and no two installations share a key."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


DEBUG = env_bool("DJANGO_DEBUG", False)
# Where the embedded Postgres keeps its data, and the generated secret key.
DATA_DIR = Path(env_str("MEMADMIN_DATA_DIR", str(BASE_DIR / "var"))).resolve()
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY") or secret_key_from_file(DATA_DIR / "secret_key")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])

DATABASE_URL = os.environ.get("DATABASE_URL", "")
if not DATABASE_URL:
    from memadmin import embedded_db

    # The HNSW index of 100k memories is about 200 MB: PostgreSQL's default 128 MB of
    # shared buffers would read it from disk on every search.
    DATABASE_URL = embedded_db.start(
        DATA_DIR,
        tuning={
            "shared_buffers": env_str("MEMADMIN_EMBEDDED_SHARED_BUFFERS", "1GB"),
            "maintenance_work_mem": env_str("MEMADMIN_EMBEDDED_MAINTENANCE_WORK_MEM", "1GB"),
            "effective_cache_size": env_str("MEMADMIN_EMBEDDED_EFFECTIVE_CACHE_SIZE", "4GB"),
        },
    )
DATABASES = {"default": database_from_url(DATABASE_URL)}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "django_htmx",
    "template_partials",
    "memadmin.store",
    "memadmin.curation",
    "memadmin.review",
    "memadmin.api",
    "memadmin.sources",
    # The task queue in the same PostgreSQL (find_duplicates --enqueue, workers).
    "procrastinate.contrib.django",
    # Login throttling: failed logins per user name and address, kept in the database.
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "memadmin.review.middleware.content_security_policy",
    "memadmin.review.middleware.no_stored_pages",
    "memadmin.review.middleware.refuse_unreadable_input",
    "memadmin.review.middleware.method_not_allowed_page",
    # Last, as django-axes asks: it answers a locked-out login attempt.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    # First: refuses a locked-out user name and address before the password is checked.
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# A user name at one address is locked out for AXES_COOLOFF_TIME after this many failed
# logins in a row; a success resets the count.
AXES_FAILURE_LIMIT = env_int("MEMADMIN_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = env_int("MEMADMIN_LOGIN_LOCKOUT_MINUTES", 15, minimum=1) / 60  # hours
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False

ROOT_URLCONF = "memadmin.urls"
WSGI_APPLICATION = "memadmin.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memadmin.review.context.roles",
                "memadmin.review.context.undo_offer",
                "memadmin.review.context.diff_view",
            ],
        },
    }
]

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Static files are few and small: whitenoise serves them straight from the source folders,
# with DEBUG off too, so neither the demo nor a deployment needs collectstatic.
WHITENOISE_USE_FINDERS = True

SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads no cookie: the token travels in hx-headers
# Served over HTTPS (directly or behind a proxy): cookies only over HTTPS, and HSTS.
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = env_bool("MEMADMIN_SECURE_COOKIES", False)
SECURE_HSTS_SECONDS = env_int("MEMADMIN_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("MEMADMIN_HSTS_INCLUDE_SUBDOMAINS", False)
# Behind a proxy that ends TLS and sets X-Forwarded-Proto (and that strips the header from
# clients): requests it marks https count as secure.
if env_bool("MEMADMIN_BEHIND_HTTPS_PROXY", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("MEMADMIN_SSL_REDIRECT", False)
X_FRAME_OPTIONS = "DENY"
# No inline script anywhere; the policy text lives beside its middleware.
CONTENT_SECURITY_POLICY = env_str(
    "MEMADMIN_CONTENT_SECURITY_POLICY",
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "loggers": {
        "memadmin": {"handlers": ["stderr"], "level": env_str("MEMADMIN_LOG_LEVEL", "INFO")},
        # A 500 is logged with its traceback whatever DEBUG says (Django alone only mails
        # it to ADMINS when DEBUG is off).
        "django.request": {"handlers": ["stderr"], "level": "ERROR", "propagate": False},
    },
}

# --- Embeddings -------------------------------------------------------------------------
# Sentences per onnxruntime call; texts are sorted by length first so padding stays small.
EMBEDDING_BATCH_SIZE = env_int("MEMADMIN_EMBEDDING_BATCH_SIZE", 64, minimum=1)
# Rows written per database round trip on import (also the unit of progress).
IMPORT_CHUNK_SIZE = env_int("MEMADMIN_IMPORT_CHUNK_SIZE", 1000, minimum=1)
# Sources (the stores agents run): points read per batch of a pull (one transaction each),
# and operations sent per batch of a push (journalled in one transaction, then sent).
SOURCE_PULL_BATCH = env_int("MEMADMIN_SOURCE_PULL_BATCH", 1000, minimum=1)
SOURCE_PUSH_BATCH = env_int("MEMADMIN_SOURCE_PUSH_BATCH", 500, minimum=1)
# HNSW candidate list at query time; higher is more exact and slower. pgvector's default
# of 40: measured at 100k memories, 1.4 ms per k=5 query against 2.1 ms at 100, recall@5
# 0.936 against 0.948 (bench/api_write.py); a query with k above it widens it.
HNSW_EF_SEARCH = env_int("MEMADMIN_HNSW_EF_SEARCH", 40, minimum=1)

# --- Curation guards --------------------------------------------------------------------
# Memories in these categories, or with importance or confidence at or above the level,
# are protected: shown for review, never merged automatically.
PROTECTED_CATEGORIES = env_list(
    "MEMADMIN_PROTECTED_CATEGORIES", ["constraint", "postmortem", "gotcha"]
)
PROTECTED_LEVEL = env_float("MEMADMIN_PROTECTED_LEVEL", 0.95)
# Longest memory text accepted by the import and the API (agents store short facts).
MAX_CONTENT_BYTES = env_int("MEMADMIN_MAX_CONTENT_BYTES", 8192, minimum=1)

# --- Detection (find_duplicates) -------------------------------------------------------
# Calibrated for all-MiniLM-L6-v2 on the labelled dev set (README: "Calibration").
# Cosine at or above which a pair with no key-token difference and every guard passing is
# merged without review (undoable).
DEDUP_AUTO_MERGE = env_bool("MEMADMIN_DEDUP_AUTO_MERGE", True)
DEDUP_AUTO_MERGE_THRESHOLD = env_float("MEMADMIN_DEDUP_AUTO_MERGE_THRESHOLD", 0.95)
# Similarity (mean of cosine and lexical containment) from which a pair is proposed.
DEDUP_REVIEW_THRESHOLD = env_float("MEMADMIN_DEDUP_REVIEW_THRESHOLD", 0.4)
# Cosine floor of the vector layer: pairs below are never looked at.
DEDUP_CANDIDATE_THRESHOLD = env_float("MEMADMIN_DEDUP_CANDIDATE_THRESHOLD", 0.45)
# Similarity from which two memories count as the same subject, so that a differing key
# token makes them a conflict (lower finds more conflicts, and more false ones).
DEDUP_CONFLICT_THRESHOLD = env_float("MEMADMIN_DEDUP_CONFLICT_THRESHOLD", 0.42)
# Lexical containment of the two texts with the differing values set aside, from which a
# key-token difference reads as one fact changed rather than two facts.
DEDUP_CONFLICT_SLOT = env_float("MEMADMIN_DEDUP_CONFLICT_SLOT", 0.35)
# Each memory is compared with its k nearest by each model (those above the model's floor),
# not with every memory above the floor: the multilingual model's cosines of short texts
# all pass its floor. MiniLM's k also bounds the HNSW route's search.
DEDUP_NEIGHBOURS = env_int("MEMADMIN_DEDUP_NEIGHBOURS", 10, minimum=1)
DEDUP_MULTI_NEIGHBOURS = env_int("MEMADMIN_DEDUP_MULTI_NEIGHBOURS", 10, minimum=1)
# The tiers of the calibrated pair model (curation/detection/scoring/model.py), as
# probabilities. Their defaults are what the fit chose on the leave-one-set-out figures
# (manage.py fit_pair_model writes them into pair_model.json beside the weights):
# proposed from DEDUP_PROPOSE_* (held-out precision >= 0.90 on one fact, >= 0.85 on
# conflicts), possible (ranked apart, never merged or bulk-accepted) from
# DEDUP_POSSIBLE_*; an automatic merge needs P(one fact) >= DEDUP_AUTO_CONFIDENCE too.
_FITTED = json.loads(
    (BASE_DIR / "memadmin" / "curation" / "detection" / "scoring" / "pair_model.json").read_text()
)["thresholds"]
DEDUP_PROPOSE_ONE = env_float("MEMADMIN_DEDUP_PROPOSE_ONE", _FITTED["propose_one"])
DEDUP_PROPOSE_CONFLICT = env_float("MEMADMIN_DEDUP_PROPOSE_CONFLICT", _FITTED["propose_conflict"])
DEDUP_POSSIBLE_ONE = env_float("MEMADMIN_DEDUP_POSSIBLE_ONE", _FITTED["possible_one"])
DEDUP_POSSIBLE_CONFLICT = env_float(
    "MEMADMIN_DEDUP_POSSIBLE_CONFLICT", _FITTED["possible_conflict"]
)
DEDUP_AUTO_CONFIDENCE = env_float("MEMADMIN_DEDUP_AUTO_CONFIDENCE", _FITTED["auto_confidence"])
# From this share of Chinese/Japanese/Korean letters, text is compared lexically (the
# English embedding model cannot read it).
DEDUP_CJK_SHARE = env_float("MEMADMIN_DEDUP_CJK_SHARE", 0.3)
# The multilingual model's thresholds (multilingual-e5-small: its cosines sit between 0.72
# for unrelated memories and 1.0, so each has its own calibrated value): its floor for
# candidate pairs; a same-language pair it proposes; a pair across languages it proposes;
# a pair it calls the same subject, so that a differing value makes a conflict.
DEDUP_MULTI_CANDIDATE_THRESHOLD = env_float("MEMADMIN_DEDUP_MULTI_CANDIDATE_THRESHOLD", 0.8)
DEDUP_MULTI_REVIEW_THRESHOLD = env_float("MEMADMIN_DEDUP_MULTI_REVIEW_THRESHOLD", 0.87)
DEDUP_MULTI_CROSS_THRESHOLD = env_float("MEMADMIN_DEDUP_MULTI_CROSS_THRESHOLD", 0.86)
DEDUP_MULTI_SUBJECT_THRESHOLD = env_float("MEMADMIN_DEDUP_MULTI_SUBJECT_THRESHOLD", 0.88)
# Across languages, a stance and its opposite ("Mag keinen Koriander" / "Loves cilantro"),
# read from both texts' words of liking, are one subject from this multilingual cosine (a
# value that changed in a slot both name needs only to be a candidate).
DEDUP_MULTI_CONFLICT_THRESHOLD = env_float("MEMADMIN_DEDUP_MULTI_CONFLICT_THRESHOLD", 0.84)
# A pair proposed with a similarity below DEDUP_ALIGN_UNTIL must also pair up the words
# each side adds (curation.alignment: near-synonyms in a paraphrase, other attributes in
# two facts about one subject) at DEDUP_ALIGN_FLOOR or more.
DEDUP_ALIGN_UNTIL = env_float("MEMADMIN_DEDUP_ALIGN_UNTIL", 0.6)
DEDUP_ALIGN_FLOOR = env_float("MEMADMIN_DEDUP_ALIGN_FLOOR", 0.37)
# --if-due: a namespace runs when it has more than this many active memories...
DEDUP_MIN_MEMORIES = env_int("MEMADMIN_DEDUP_MIN_MEMORIES", 10, minimum=0)
# ...and its last run is older than this.
DEDUP_INTERVAL_HOURS = env_int("MEMADMIN_DEDUP_INTERVAL_HOURS", 24, minimum=0)
# Alert (log line DEDUP_ALERT, recorded on the run) above this removal rate.
DEDUP_ALERT_REMOVAL_RATE = env_float("MEMADMIN_DEDUP_ALERT_REMOVAL_RATE", 0.5)
# Automatic changes per run unless --max-ops says otherwise.
DEDUP_MAX_OPS = env_int("MEMADMIN_DEDUP_MAX_OPS", 200, minimum=0)

# --- Time decay (decay_memories) --------------------------------------------------------
DECAY_RATE = env_float("MEMADMIN_DECAY_RATE", 0.01)
DECAY_FLOOR = env_float("MEMADMIN_DECAY_FLOOR", 0.05)
# Worker processes for the exact vector layer of large namespaces (fork; one BLAS thread
# each), and the work (queries x vectors) from which they are worth starting.
DEDUP_WORKERS = env_int("MEMADMIN_DEDUP_WORKERS", 2, minimum=1)
DEDUP_PARALLEL_MIN_WORK = env_int("MEMADMIN_DEDUP_PARALLEL_MIN_WORK", 200_000_000, minimum=0)
# find_duplicates reads, judges and writes namespaces in batches of up to this many active
# memories and namespaces (a few queries and one transaction a batch, not a dozen queries
# a namespace); the worker processes take a batch at a time. A namespace of
# DEDUP_BATCH_MEMORIES or more is a batch of its own, its vector layer in the workers.
DEDUP_BATCH_MEMORIES = env_int("MEMADMIN_DEDUP_BATCH_MEMORIES", 20_000, minimum=1)
DEDUP_BATCH_NAMESPACES = env_int("MEMADMIN_DEDUP_BATCH_NAMESPACES", 200, minimum=1)
# An incremental run (not --full) reads few vectors: its batches hold up to this many
# active memories, each query's fixed cost spread over more namespaces (the nightly run
# of bench/find_duplicates.py scenario d at 1,000 namespaces: 9.4 s with 20,000, 7.4 s
# with 60,000, medians of four).
DEDUP_INCREMENTAL_BATCH_MEMORIES = env_int(
    "MEMADMIN_DEDUP_INCREMENTAL_BATCH_MEMORIES", 60_000, minimum=1
)
# --- The queue (procrastinate, in the same PostgreSQL) ------------------------------------
# find_duplicates --enqueue defers batches of namespaces as jobs on this queue; workers
# (`python manage.py procrastinate worker --queues dedup`) run them on any machine that
# reaches the database.
DEDUP_QUEUE = env_str("MEMADMIN_DEDUP_QUEUE", "dedup")
# A batch that raises is tried again this many times, then stays failed (its error on the
# dashboard and in find_duplicates --status).
DEDUP_TASK_RETRIES = env_int("MEMADMIN_DEDUP_TASK_RETRIES", 2, minimum=0)
# A batch whose worker sent no heartbeat for this long (killed, its machine gone) is
# queued again by the stalled-job recovery every worker runs each minute.
DEDUP_STALLED_SECONDS = env_int("MEMADMIN_DEDUP_STALLED_SECONDS", 60, minimum=10)
# A cron expression ("0 3 * * *"): the workers queue the due namespaces (--if-due) on it,
# in place of a cron line. Empty: off.
DEDUP_SCHEDULE = env_str("MEMADMIN_DEDUP_SCHEDULE", "")
PROCRASTINATE_IMPORT_PATHS = ["memadmin.curation.runs.tasks"]
PROCRASTINATE_AUTODISCOVER_MODULE_NAME = ""
# A worker loads the readers' dictionaries as it starts, not inside its first batch.
PROCRASTINATE_ON_APP_READY = "memadmin.curation.runs.worker.on_app_ready"


def _valid_schedule(expression: str) -> str:
    from croniter import croniter

    if expression and not croniter.is_valid(expression):
        raise ImproperlyConfigured(
            f"MEMADMIN_DEDUP_SCHEDULE must be a cron expression (e.g. '0 3 * * *'), "
            f"not {expression!r}"
        )
    return expression


DEDUP_SCHEDULE = _valid_schedule(DEDUP_SCHEDULE)

# Incremental runs take the HNSW route (k nearest per new memory, from the index) instead
# of loading every vector, when the namespace has at least this many memories and at
# most this many are new (bench/find_duplicates.py measures both routes).
DEDUP_INDEX_MIN_MEMORIES = env_int("MEMADMIN_DEDUP_INDEX_MIN_MEMORIES", 20_000, minimum=0)
DEDUP_INDEX_MAX_QUERIES = env_int("MEMADMIN_DEDUP_INDEX_MAX_QUERIES", 500, minimum=0)
# The HNSW route's candidate list: at 40, k=20 missed 2 of 13 pairs on random vectors
# (the worst case); at 100, none (bench/find_duplicates.py scenario c).
DEDUP_INDEX_EF_SEARCH = env_int("MEMADMIN_DEDUP_INDEX_EF_SEARCH", 100, minimum=1)
# Any other incremental run with at most this many new memories in a namespace compares
# them with all of it inside PostgreSQL (exact, as the matrix route) instead of reading
# every vector out: reading costs about 7 µs a memory, comparing there 0.14 µs a pair, so
# it pays below about 50 (bench/find_duplicates.py scenario d); the server's core is
# shared with the workers, hence half that.
DEDUP_DATABASE_MAX_QUERIES = env_int("MEMADMIN_DEDUP_DATABASE_MAX_QUERIES", 25, minimum=0)

# --- LLM (anthropic SDK; the key is ANTHROPIC_API_KEY, a gateway ANTHROPIC_BASE_URL) -----
LLM_MODEL = env_str("MEMADMIN_LLM_MODEL", "claude-haiku-5-5")
LLM_TIMEOUT_SECONDS = env_float("MEMADMIN_LLM_TIMEOUT_SECONDS", 30.0, low=0.1, high=600.0)
# Retries the SDK makes itself (with back-off) on 429/529/5xx before memadmin falls back.
LLM_MAX_RETRIES = env_int("MEMADMIN_LLM_MAX_RETRIES", 2, minimum=0)
# Calls one command run may make at most (verdicts and merges together): a safety cap
# over the per-run budget below; the rest are skipped.
LLM_MAX_CALLS_PER_RUN = env_int("MEMADMIN_LLM_MAX_CALLS_PER_RUN", 5000, minimum=0)
LLM_MAX_TOKENS = env_int("MEMADMIN_LLM_MAX_TOKENS", 600, minimum=16)
# Every doubtful pair is asked (curation/llm/band.py): one whose likeliest
# reading has a probability under LLM_SURE, and that is one fact or a conflict with a
# probability of LLM_ASK_FLOOR or more; the most doubtful first, within a budget of
# LLM_CALLS_PER_MEMORY calls for each memory the run compares (what a namespace leaves
# unspent goes to the next; what the doubtful pairs leave goes to the pairs the model is
# sure of, the least sure first). Measured with an oracle judge (bench/llm_band.py): at
# floor 0.1, 40 % of the doubtful pairs are one fact or a conflict and 4 % of those are
# under the floor; at 0.05, 27 % and 3 %, and half again as many calls.
LLM_SURE = env_float("MEMADMIN_LLM_SURE", 0.97)
LLM_ASK_FLOOR = env_float("MEMADMIN_LLM_ASK_FLOOR", 0.1)
LLM_CALLS_PER_MEMORY = env_float("MEMADMIN_LLM_CALLS_PER_MEMORY", 1.0, low=0.0, high=100.0)
# A call carries a memory and up to this many of its nearest candidates and answers each
# pair (as Mem0's add reads a memory against what it retrieved): with an LLM every near
# candidate is read, the doubtful first, within the budget above. 1 asks pair by pair
# (the doubtful pairs first, then the surest fill what is left), as a Message Batch does.
LLM_GROUP_SIZE = env_int("MEMADMIN_LLM_GROUP_SIZE", 16, minimum=1)
# How often the LLM is taken to be right: a pair it judged gets the model's probabilities
# (tempered by the model's llm_temperature) updated by its answer, and the answer decides
# where it is then likelier than not (a pair the model gives under one chance in twelve
# of what the LLM said, at 0.85, stays with the model).
LLM_ACCURACY = env_float("MEMADMIN_LLM_ACCURACY", 0.85, low=0.34, high=1.0)
# The least the model's prior gives any reading when an answer updates it: a model sure of
# a pair its readers cannot see (another language, other words) is not sure beyond what
# two agreeing answers can overturn.
LLM_PRIOR_FLOOR = env_float("MEMADMIN_LLM_PRIOR_FLOOR", 0.02, low=0.0, high=0.3)
# A merge or a conflict the LLM's readings leave under this chance (the model's tempered
# probabilities updated by every reading, but likelier than not) is offered in the
# possible tier, not proposed: two readings of three against a model that gave the answer
# 0.1-0.2 are wrong more often than two of two (docs/llm.md). 0.5: every such answer proposes.
LLM_ANSWER_PROPOSES_FROM = env_float("MEMADMIN_LLM_ANSWER_PROPOSES_FROM", 0.75, low=0.5, high=1.0)
# An answer the (tempered) model gave under this chance overturns it: it is asked a second
# time, the newer memory shown first, and decides only if both readings agree (asked
# several a call once the groups are read, within the same budget).
LLM_SECOND_READING_BELOW = env_float("MEMADMIN_LLM_SECOND_READING_BELOW", 0.3, low=0.0, high=1.0)
# The same for an answer "conflict", which puts a pair before an admin: read twice unless
# the (tempered) model already holds it likelier than not. Measured with the oracle wrong
# 15 % of the time (bench/llm_band.py --loso), against 0.3: pooled conflicts P 0.912 ->
# 0.942, R 0.906 -> 0.886, 0.87 -> 0.89 calls a memory; 1.0 (always) 0.945 / 0.862.
LLM_CONFLICT_SECOND_READING_BELOW = env_float(
    "MEMADMIN_LLM_CONFLICT_SECOND_READING_BELOW", 0.5, low=0.0, high=1.0
)
# The same for an answer "duplicate", which proposes a merge: from LLM_SECOND_READING_BELOW
# up to this bar its second reading takes only the calls every near candidate's first
# reading leaves, and where none is left the answer decides alone. Measured with the
# oracle wrong 15 % of the time (bench/llm_band.py --loso) against 0.3: the minimal
# pairs' duplicates P 0.899 -> 0.946, the rest unchanged (docs/llm.md).
LLM_DUPLICATE_SECOND_READING_BELOW = env_float(
    "MEMADMIN_LLM_DUPLICATE_SECOND_READING_BELOW", 0.4, low=0.0, high=1.0
)
# The same for an answer "two facts" (related_distinct or unrelated), which sets a pair
# apart: read twice where the (tempered) model gave it under this chance (at least
# LLM_SECOND_READING_BELOW). One wrong such answer on a pair the model barely leaned
# against lost most of the duplicates a judge wrong 15 % of the time missed (docs/llm.md).
LLM_DISTINCT_SECOND_READING_BELOW = env_float(
    "MEMADMIN_LLM_DISTINCT_SECOND_READING_BELOW", 0.6, low=0.0, high=1.0
)
# Two agreeing answers the (tempered) model gave under this chance are read a third time,
# in a form neither took (curation.llm.asking.FORMS), and decide only if it agrees too: a
# judge wrong independently on each reading agrees with itself on a wrong answer now and
# then, and over every near candidate that made conflicts of pairs with nothing in common.
LLM_THIRD_READING_BELOW = env_float("MEMADMIN_LLM_THIRD_READING_BELOW", 0.1, low=0.0, high=1.0)
# The same for two answers "conflict" (at least LLM_THIRD_READING_BELOW): most false
# conflicts a judge wrong 15 % of the time made were two wrong readings agreeing on a pair
# the model gave 0.1-0.2, one pair in 180 of those read twice (docs/llm.md).
LLM_CONFLICT_THIRD_READING_BELOW = env_float(
    "MEMADMIN_LLM_CONFLICT_THIRD_READING_BELOW", 0.25, low=0.0, high=1.0
)
# Two readings that disagree are read a third time (in a form neither took), and two of
# three agreeing decide as two agreeing readings do. Measured with the oracle wrong 15 %
# of the time (bench/llm_band.py --loso --seed 7,8,9): see docs/llm.md.
LLM_THIRD_READING_WHERE_READINGS_DISAGREE = env_bool(
    "MEMADMIN_LLM_THIRD_READING_WHERE_READINGS_DISAGREE", True
)
# Second readings go this many to a call (prompts.recheck_prompt, each pair the newer
# first), once a call's worth is owed or the groups are read: a confirmation costs a
# share of a call, and the calls saved read more groups (docs/llm.md). Third readings go
# as many to a call in prompts.pairs_prompt where no earlier reading of theirs took it
# (one a call, they took a third of a spent budget). 1 asks each alone.
LLM_SECOND_READINGS_A_CALL = env_int("MEMADMIN_LLM_SECOND_READINGS_A_CALL", 8, minimum=1)
# The share of each pass's LLM budget that audits it (curation/llm/audit.py): pairs drawn
# at random from every band of what it said, sure pairs included, asked again to measure
# the store's precision and recall (find_duplicates, export_review, the dashboard). The
# band gets the rest. 0 measures nothing.
LLM_AUDIT_SHARE = env_float("MEMADMIN_LLM_AUDIT_SHARE", 0.15, low=0.0, high=1.0)
# Pairs an audit call carries (each read on its own, as a group call reads its candidates).
LLM_AUDIT_PAIRS = env_int("MEMADMIN_LLM_AUDIT_PAIRS", 8, minimum=1)
# Calls in flight at once (each waits out a rate limit the answers' headers announce).
LLM_CONCURRENCY = env_int("MEMADMIN_LLM_CONCURRENCY", 4, minimum=1)
# find_duplicates --llm-batch: seconds between two looks at a Message Batch's progress.
LLM_BATCH_POLL_SECONDS = env_float("MEMADMIN_LLM_BATCH_POLL_SECONDS", 30.0, low=0.01, high=3600.0)
# A run stops calling the LLM after this many seconds in all (each call's timeout shrinks
# to fit what is left) or after this many failures in a row (a gateway that hangs or
# errors costs one budget, not one timeout per pair); the rest falls back to the rules.
LLM_RUN_BUDGET_SECONDS = env_float("MEMADMIN_LLM_RUN_BUDGET_SECONDS", 300.0, low=1.0, high=86400.0)
LLM_BREAKER_FAILURES = env_int("MEMADMIN_LLM_BREAKER_FAILURES", 3, minimum=1)

# --- Agent API ------------------------------------------------------------------------
# Nearest memories a write is checked against (and listed back as `similar`).
API_NEIGHBOURS = env_int("MEMADMIN_API_NEIGHBOURS", 5, minimum=1)
API_MAX_BODY_BYTES = env_int("MEMADMIN_API_MAX_BODY_BYTES", 65536, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = max(API_MAX_BODY_BYTES * 2, 2_621_440)
# A bulk form sends two fields a row (the tick and the version it was shown at): up to
# 2,000 rows of a queue's "all matching" (MAX_MATCHING) and the batch screen's texts.
DATA_UPLOAD_MAX_NUMBER_FIELDS = 10_000
