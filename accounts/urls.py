"""Account API routes (under /api/v1/)."""

from django.urls import path

from accounts import apis

app_name = "accounts"

urlpatterns = [
    path("auth/signup", apis.SignupApi.as_view(), name="signup"),
    path("auth/login", apis.LoginApi.as_view(), name="login"),
    path("auth/logout", apis.LogoutApi.as_view(), name="logout"),
    path("auth/token", apis.TokenApi.as_view(), name="token"),
    path("me", apis.MeApi.as_view(), name="me"),
    path("me/password", apis.PasswordChangeApi.as_view(), name="password-change"),
    path("me/devices", apis.DevicesApi.as_view(), name="devices"),
    path("me/devices/<str:token_key>", apis.DeviceApi.as_view(), name="device"),
    path("me/push-subscriptions", apis.PushSubscriptionsApi.as_view(), name="push-subscriptions"),
    path(
        "me/push-subscriptions/<int:subscription_id>",
        apis.PushSubscriptionApi.as_view(),
        name="push-subscription",
    ),
    path("me/push-preferences", apis.PushPreferencesApi.as_view(), name="push-preferences"),
    path("me/push-public-key", apis.PushPublicKeyApi.as_view(), name="push-public-key"),
]
