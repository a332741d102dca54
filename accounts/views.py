from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from accounts.forms import ThrottledAuthenticationForm
from core.permissions import Perm


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Send each role to where its work is."""
    if request.user.has_perm(Perm.VIEW_BENCHMARK):
        return redirect("benchmark-list")
    if request.user.has_perm(Perm.ANNOTATE):
        return redirect("review-my-work")
    return render(request, "accounts/home.html")


class LoginView(auth_views.LoginView):
    """Django's login page with the throttled form; a paused sign-in answers 429."""

    authentication_form = ThrottledAuthenticationForm
    redirect_authenticated_user = True

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.locked_out:
            response.status_code = 429
        return response
