"""The audit queue (curators): pairs drawn at random from every band of what detection
said, each answered one fact / conflict / two facts / unsure (keys 1-4); the store's
measured error rate (the dashboard) rests on the answers."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from memadmin.curation import decisions
from memadmin.curation.reads import audit as audit_reads
from memadmin.review import roles
from memadmin.review.forms import AuditAnswer
from memadmin.review.views.helpers import role_required

ANSWERED = {
    "one_fact": "one fact",
    "conflict": "a conflict",
    "two_facts": "two facts",
    "unsure": "unsure (it counts in no figure)",
}


@role_required(roles.CURATOR)
def audit(request: HttpRequest) -> HttpResponse:
    """The next pair to label, or that there is none left."""
    return render(request, "review/audit.html", {"pair": audit_reads.next_pair()})


@require_POST
@role_required(roles.CURATOR)
def answer(request: HttpRequest) -> HttpResponse:
    """Record the answer, then on to the next pair."""
    form = AuditAnswer(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing recorded: {form.problem()}.")
        return redirect("audit")
    data = form.cleaned_data
    try:
        decisions.label_pair(
            memory_ids=(data["memory_a"], data["memory_b"]), label=data["label"], user=request.user
        )
    except decisions.DecisionError as problem:
        messages.error(request, f"Nothing recorded: {problem}.")
        return redirect("audit")
    messages.success(request, f"Recorded: {ANSWERED[data['label']]}. The next pair:")
    return redirect("audit")
