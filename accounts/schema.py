"""drf-spectacular: document our authenticators as the DRF ones they extend.

Spectacular's token scheme matches subclasses; its session scheme does not, so ours is named
here. Imported by `AccountsConfig.ready`.
"""

from drf_spectacular.authentication import SessionScheme as SpectacularSessionScheme
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object


class SessionScheme(SpectacularSessionScheme):
    target_class = "accounts.authentication.SessionAuthentication"


class TokenScheme(OpenApiAuthenticationExtension):
    """Our token authenticator extends knox's; clients see the header they always sent."""

    target_class = "accounts.authentication.TokenAuthentication"
    name = "tokenAuth"
    priority = 1  # over drf-spectacular's own knox extension

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(
            header_name="Authorization", token_prefix="Token"
        )
