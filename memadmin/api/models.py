"""API tokens: one namespace each, stored only as a sha256 hash."""

from __future__ import annotations

import hashlib
import secrets

from django.conf import settings
from django.db import models
from django.utils import timezone

from memadmin.store.models import Namespace

TOKEN_PREFIX = "mem_"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class ApiToken(models.Model):
    namespace = models.ForeignKey(Namespace, on_delete=models.CASCADE, related_name="tokens")
    name = models.CharField(max_length=100)
    # sha256 of the token: a leaked database does not leak usable tokens.
    token_hash = models.CharField(max_length=64, unique=True)
    # The first characters, so people can tell their tokens apart.
    prefix = models.CharField(max_length=12)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["namespace__name", "-created_at"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}...) for {self.namespace}"

    @classmethod
    def issue(cls, *, namespace: Namespace, name: str, created_by=None) -> tuple[ApiToken, str]:
        """A new token; the plain text is returned once and never stored."""
        plain = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls.objects.create(
            namespace=namespace,
            name=name,
            token_hash=hash_token(plain),
            prefix=plain[:12],
            created_by=created_by,
        )
        return token, plain

    class NoNamespace(Exception):
        """A token asked for a namespace that does not exist (and no new one)."""

    @classmethod
    def issue_for(
        cls, *, namespace: str, name: str, create_namespace: bool, created_by=None
    ) -> tuple[ApiToken, str]:
        """A new token for the namespace named `namespace`, made first when
        `create_namespace` says so: a mistyped name must not quietly become a new, empty
        namespace."""
        found = Namespace.objects.filter(name=namespace).first()
        if found is None and create_namespace:
            found = Namespace.objects.create(name=namespace)
        if found is None:
            raise cls.NoNamespace(
                f"there is no namespace {namespace!r}. Pick one of the list, or tick 'a new "
                "namespace' to start one."
            )
        return cls.issue(namespace=found, name=name, created_by=created_by)

    def revoke(self) -> None:
        self.revoked_at = timezone.now()
        self.save(update_fields=["revoked_at"])
