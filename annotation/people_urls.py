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
    path("people/rounds/<int:round_id>/pool/", people.pool_add_view, name="people-pool-add"),
    path(
        "people/rounds/<int:round_id>/pool/<int:user_id>/remove/",
        people.pool_remove_view,
        name="people-pool-remove",
    ),
    path("join/<str:token>/", people.join, name="people-join"),
    path("reset/<str:uidb64>/<str:token>/", people.password_reset, name="people-reset"),
]
