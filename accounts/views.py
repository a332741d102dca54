from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Send each role to where its work is."""
    if request.user.has_perm("annotation.view_benchmark"):
        return redirect("benchmark-list")
    if request.user.has_perm("annotation.annotate"):
        return redirect("review-my-work")
    return render(request, "accounts/home.html")
