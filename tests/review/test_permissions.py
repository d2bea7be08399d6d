"""Who may see and do what, over every page and action."""

import pytest

from memadmin.api.models import ApiToken
from memadmin.curation.models import Cluster, Conflict
from memadmin.store.models import Memory
from tests.factories import line, near, person, unit

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def everything(run_command, write_jsonl):
    lines = [
        line("a", "Her cat Miso is an orange tabby.", unit(1), tags=["pets"]),
        line("b", "Has a cat called Miso.", near(1, 0.8), tags=["pets"]),
        line("c", "The billing API is deployed on Hetzner.", unit(2)),
        line("d", "The billing API is deployed on Railway.", near(2, 0.97)),
    ]
    run_command("import_memories", str(write_jsonl(lines)))
    run_command("find_duplicates")
    cluster, conflict = Cluster.objects.get(), Conflict.objects.get()
    token, _ = ApiToken.issue(namespace=conflict.namespace, name="t")
    member = cluster.memberships.first().memory_id
    return {
        "pages": [
            "/",
            "/clusters/",
            f"/clusters/{cluster.pk}/",
            "/conflicts/",
            f"/conflicts/{conflict.pk}/",
            "/history/",
            "/memories/",
            f"/memories/{Memory.objects.first().pk}/",
        ],
        "curator": [
            f"/clusters/{cluster.pk}/accept",
            f"/clusters/{cluster.pk}/dismiss",
            f"/history/unmerge/{cluster.pk}",
            f"/clusters/{cluster.pk}/split",
            f"/clusters/{cluster.pk}/keep/{member}",
            f"/clusters/{cluster.pk}/exclude/{member}",
            f"/clusters/{cluster.pk}/refresh",
            "/clusters/accept-exact",
        ],
        "admin": [
            f"/conflicts/{conflict.pk}/resolve",
            "/tokens/",
            f"/tokens/{token.pk}/revoke",
            f"/memories/{member}/pin",
        ],
    }


@pytest.mark.parametrize("role", [None, "viewer", "curator", "admin"])
def test_the_permission_matrix(client, everything, role):
    if role:
        client.force_login(person("p", role))
    rank = {None: -1, "viewer": 0, "curator": 1, "admin": 2}[role]

    for url in everything["pages"]:
        expected = 200 if role else 302
        assert client.get(url).status_code == expected, url
    for needed, urls in (("curator", everything["curator"]), ("admin", everything["admin"])):
        for url in urls:
            if role is None:
                expected = 302  # to the login page
            elif rank < {"curator": 1, "admin": 2}[needed]:
                expected = 403
            else:
                continue  # allowed: the actions themselves are tested elsewhere
            assert client.post(url).status_code == expected, url
