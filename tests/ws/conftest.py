import pytest


@pytest.fixture(autouse=True)
def _committed(committed_db):
    """Consumers reach the database from other threads (database_sync_to_async closes and
    reopens connections), so socket tests need really committed data."""
