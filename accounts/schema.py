"""drf-spectacular: document our authenticators as the DRF ones they extend.

Spectacular's token scheme matches subclasses; its session scheme does not, so ours is named
here. Imported by `AccountsConfig.ready`.
"""

from drf_spectacular.authentication import SessionScheme as SpectacularSessionScheme


class SessionScheme(SpectacularSessionScheme):
    target_class = "accounts.authentication.SessionAuthentication"
