from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    # The one-time link an invited person sets their password with (review.views.people).
    path(
        "accounts/set-password/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(
            template_name="registration/set_password.html", success_url="/accounts/login/"
        ),
        name="password_reset_confirm",
    ),
    path("admin/", admin.site.urls),
    path("api/v1/", include("memadmin.api.urls")),
    path("", include("memadmin.review.urls")),
]

handler403 = "memadmin.review.views.people.denied"
