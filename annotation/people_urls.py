from django.urls import path

from annotation.views import people

urlpatterns = [
    path("people/", people.people_page, name="people"),
    path("people/invite/", people.invite, name="people-invite"),
    path(
        "people/invitations/<int:invitation_id>/revoke/",
        people.invite_revoke,
        name="people-invite-revoke",
    ),
    path("people/<int:user_id>/", people.person, name="people-person"),
    path("people/<int:user_id>/reset-link/", people.reset_link, name="people-reset-link"),
    path("people/rounds/<int:round_id>/rate/", people.round_rate, name="people-round-rate"),
    path("join/<str:token>/", people.join, name="people-join"),
    path("reset/<str:uidb64>/<str:token>/", people.password_reset, name="people-reset"),
]
