from django.urls import path

from guides import views

urlpatterns = [
    path("help/", views.help_home, name="help"),
    path("help/<slug:name>/", views.help_page, name="help-page"),
]
