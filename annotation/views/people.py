"""People pages for coordinators (invite, roles, specialities, activation, reset links,
piece rates) and the two public pages a link leads to (sign-up, new password). Links are
rendered in the answer to the POST that made them, never stored or put in a message, so
they are shown once."""

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.forms import SetPasswordForm
from django.contrib.auth.tokens import default_token_generator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.encoding import force_str
from django.utils.http import urlsafe_base64_decode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from accounts.access import permission_needed
from accounts.invitations import (
    InvitationState,
    SignUpRefused,
    invitation_find,
    invitation_state,
    state_message,
)
from accounts.models import Invitation
from annotation.models import ReviewRound
from annotation.people_forms import InviteForm, PersonForm, RoundRateForm, SignUpForm
from annotation.selectors.people import expert_record, invitations_recent, people_list
from annotation.services.people import (
    PeopleRefused,
    PersonChange,
    password_reset_recorded,
    person_invite,
    person_invite_revoke,
    person_join,
    person_update,
    reset_link_create,
    round_rate_set,
    specialities_parse,
)
from annotation.services.round_pool import (
    PoolRefused,
    pool_add,
    pool_remove,
    unstarted_assignments,
)
from core.permissions import Perm


def _list_page(request, form, status=200, link=None):
    return render(
        request,
        "annotation/people/list.html",
        {"people": people_list(), "invitations": invitations_recent(), "form": form, "link": link},
        status=status,
    )


@permission_needed(Perm.MANAGE_PEOPLE)
def people_page(request: HttpRequest) -> HttpResponse:
    return _list_page(request, InviteForm())


@never_cache
@permission_needed(Perm.MANAGE_PEOPLE)
@require_POST
def invite(request: HttpRequest) -> HttpResponse:
    form = InviteForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            new = person_invite(
                actor=request.user,
                roles=data["roles"],
                specialities=specialities_parse(data["specialities"]),
                days=data["days"],
                note=data["note"],
            )
        except (PeopleRefused, ValueError) as exc:
            form.add_error(None, str(exc))
        else:
            link = request.build_absolute_uri(reverse("people-join", args=[new.token]))
            return _list_page(request, InviteForm(), link=link)
    return _list_page(request, form, status=400)


@permission_needed(Perm.MANAGE_PEOPLE)
@require_POST
def invite_revoke(request: HttpRequest, invitation_id: int) -> HttpResponse:
    invitation = get_object_or_404(Invitation, pk=invitation_id)
    if person_invite_revoke(actor=request.user, invitation=invitation):
        messages.success(request, _("The invitation link was revoked."))
    else:
        messages.error(request, _("This invitation was already used or revoked."))
    return redirect("people")


def _person_form(user) -> PersonForm:
    record = expert_record(user=user)
    return PersonForm(
        initial={
            "roles": list(user.groups.values_list("name", flat=True)),
            "specialities": ", ".join(record.specialities),
            "is_active": user.is_active,
            "rate": record.own_rate,
        }
    )


def _person_page(request, person, form, status=200, reset_link=None):
    return render(
        request,
        "annotation/people/person.html",
        {
            "person": person,
            "record": expert_record(user=person),
            "form": form,
            "reset_link": reset_link,
            "administrator": person.is_superuser or person.is_staff,
            "unopened": unstarted_assignments(expert=person).count(),
        },
        status=status,
    )


@permission_needed(Perm.MANAGE_PEOPLE)
def person(request: HttpRequest, user_id: int) -> HttpResponse:
    person_ = get_object_or_404(get_user_model(), pk=user_id)
    if request.method != "POST":
        return _person_page(request, person_, _person_form(person_))
    form = PersonForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            change = PersonChange(
                roles=data["roles"],
                specialities=specialities_parse(data["specialities"]),
                is_active=data["is_active"],
                rate=data["rate"],
            )
            updated = person_update(actor=request.user, user=person_, change=change)
        except PeopleRefused as exc:
            form.add_error(None, str(exc))
        else:
            if updated.actions:
                messages.success(request, _("Saved."))
            if updated.released:
                messages.info(
                    request,
                    ngettext(
                        "%(n)d unopened item went back to its round's pool.",
                        "%(n)d unopened items went back to their rounds' pools.",
                        updated.released,
                    )
                    % {"n": updated.released},
                )
            return redirect("people-person", user_id=person_.pk)
    return _person_page(request, person_, form, status=400)


@permission_needed(Perm.MANAGE_REVIEW)
@require_POST
def pool_add_view(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    expert = get_user_model().objects.filter(pk=_int(request.POST.get("expert"))).first()
    if expert is None:
        messages.error(request, _("Choose an expert to add."))
    else:
        try:
            pool_add(round_=round_, expert=expert, actor=request.user)
        except PoolRefused as exc:
            messages.error(request, str(exc))
        else:
            messages.success(
                request, _("%(name)s joined the pool.") % {"name": expert.get_username()}
            )
    return redirect("review-round", round_id=round_.pk)


@permission_needed(Perm.MANAGE_REVIEW)
@require_POST
def pool_remove_view(request: HttpRequest, round_id: int, user_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    expert = get_object_or_404(get_user_model(), pk=user_id)
    try:
        released = pool_remove(round_=round_, expert=expert, actor=request.user)
    except PoolRefused as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            ngettext(
                "%(name)s left the pool; %(n)d unopened item went back to it.",
                "%(name)s left the pool; %(n)d unopened items went back to it.",
                released,
            )
            % {"name": expert.get_username(), "n": released},
        )
    return redirect("review-round", round_id=round_.pk)


def _int(text) -> int | None:
    return int(text) if text and str(text).isdigit() else None


@never_cache
@permission_needed(Perm.MANAGE_PEOPLE)
@require_POST
def reset_link(request: HttpRequest, user_id: int) -> HttpResponse:
    person_ = get_object_or_404(get_user_model(), pk=user_id)
    try:
        uid, token = reset_link_create(actor=request.user, user=person_)
    except PeopleRefused as exc:
        messages.error(request, str(exc))
        return redirect("people-person", user_id=person_.pk)
    link = request.build_absolute_uri(reverse("people-reset", args=[uid, token]))
    return _person_page(request, person_, _person_form(person_), reset_link=link)


@permission_needed(Perm.MANAGE_REVIEW)
@require_POST
def round_rate(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = get_object_or_404(ReviewRound.objects.select_related("benchmark"), pk=round_id)
    form = RoundRateForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
    else:
        try:
            if round_rate_set(actor=request.user, round_=round_, rate=form.cleaned_data["rate"]):
                messages.success(request, _("Piece rate saved."))
        except PeopleRefused as exc:
            messages.error(request, str(exc))
    return redirect("review-round", round_id=round_.pk)


@never_cache
def join(request: HttpRequest, token: str) -> HttpResponse:
    """The invitee's sign-up page. A link that cannot be used answers 410 with the reason."""
    state = invitation_state(invitation_find(token))
    if state != InvitationState.VALID:
        return render(
            request,
            "annotation/people/link_invalid.html",
            {"message": state_message(state)},
            status=410,
        )
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            user = person_join(
                token=token,
                username=data["username"],
                password=data["password1"],
                password2=data["password2"],
            )
        except SignUpRefused as exc:
            for field, errors in exc.errors.items():
                for error in errors:
                    form.add_error(field or None, error)
        else:
            login(request, user, backend="accounts.backends.ThrottledModelBackend")
            messages.success(request, _("Welcome, %(name)s.") % {"name": user.username})
            return redirect("home")
    return render(
        request,
        "annotation/people/join.html",
        {"form": form},
        status=400 if form.errors else 200,
    )


def _reset_user(uidb64: str, token: str):
    try:
        pk = int(force_str(urlsafe_base64_decode(uidb64)))
    except (TypeError, ValueError, OverflowError, UnicodeDecodeError):
        return None
    user = get_user_model().objects.filter(pk=pk, is_active=True).first()
    if user is None or user.is_superuser or user.is_staff:
        return None
    return user if default_token_generator.check_token(user, token) else None


@never_cache
def password_reset(request: HttpRequest, uidb64: str, token: str) -> HttpResponse:
    """Choose a new password with a link from a coordinator. Signing in, or using the link,
    changes what the token was made from, so the link works once."""
    user = _reset_user(uidb64, token)
    if user is None:
        return render(
            request,
            "annotation/people/link_invalid.html",
            {
                "message": _(
                    "This password reset link is not valid: it was used, it expired, or it "
                    "was not copied whole. Ask your coordinator for a new one."
                )
            },
            status=410,
        )
    form = SetPasswordForm(user, request.POST or None)
    if request.method == "POST" and form.is_valid():
        form.save()
        password_reset_recorded(user=user)
        messages.success(request, _("Your password was changed. Sign in with it."))
        return redirect("login")
    return render(
        request,
        "annotation/people/reset.html",
        {"form": form, "person": user},
        status=400 if form.errors else 200,
    )
