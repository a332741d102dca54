from accounts.throttle import device_cookie_set


class LoginDeviceMiddleware:
    """After a successful sign-in, the browser keeps a signed cookie saying which usernames
    signed in with it, so the per-username pause of the login throttle spares it."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        device_cookie_set(request, response)
        return response
