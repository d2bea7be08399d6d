"""A message as a sentence: its first letter a capital, unless it opens with a person's
name ("carla accepted this cluster at 10:42"), which is written as the person spells it."""

from django import template
from django.contrib.auth import get_user_model

register = template.Library()


@register.filter
def sentence(message) -> str:
    text = str(message)
    first = text.split(" ", 1)[0].rstrip(":;,.")
    if not text[:1].islower() or get_user_model().objects.filter(username=first).exists():
        return text
    return text[:1].upper() + text[1:]
