"""The floor's tests: a real PostgreSQL cluster (tests/pg.py, shared with tests/shipping/) and
the floor service's users.

Each test gets its own database, migrated (`floor`); `service` adds the floor's users and
returns the DSN of a floor service login. Skipped, with the reason, when PostgreSQL is not
installed.
"""

from __future__ import annotations

import pytest

from tests.pg import Floor, cluster, floor, sample, table_log  # noqa: F401 - the fixtures

# ---- the floor service ----------------------------------------------------------------------

FLOOR_PASSWORD = "correct horse"
#: The floor's users of the service's tests: name -> role.
FLOOR_USERS = {"sup": "supervisor", "sur": "surveillance", "reg": "regulator"}


@pytest.fixture
def service(floor: Floor) -> str:  # noqa: F811 - the fixture imported above
    """The DSN of a floor service login (group floor_service), with the floor's users added."""
    from argon2 import PasswordHasher

    from dealer_assist.floor.users import add_user

    cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    for name, role in FLOOR_USERS.items():
        add_user(floor.owner, name, role, FLOOR_PASSWORD, hasher=cheap)
    return floor.add_reader("floor_service")
