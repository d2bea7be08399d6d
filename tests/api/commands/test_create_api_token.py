"""create_api_token."""

import pytest

from memadmin.api.models import ApiToken, hash_token

pytestmark = pytest.mark.django_db


def test_create_api_token_prints_a_token_stored_only_as_a_hash(run_command):
    result = run_command("create_api_token", "alice", "--name", "laptop")

    plain = result.stdout.strip()
    token = ApiToken.objects.get()
    assert plain.startswith("mem_") and len(plain) > 40
    assert (token.namespace.name, token.name, token.prefix) == ("alice", "laptop", plain[:12])
    assert token.token_hash == hash_token(plain) != plain


def test_a_bad_namespace_name_is_refused(run_command):
    result = run_command("create_api_token", "a b")

    assert "a namespace is letters" in str(result.error)
    assert not ApiToken.objects.exists()
