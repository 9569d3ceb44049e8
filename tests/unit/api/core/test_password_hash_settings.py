"""Password hashing cost comes from the settings; only a test environment may go below OWASP's floor."""

from __future__ import annotations

import pytest
from argon2 import extract_parameters
from pydantic import ValidationError

from api.core.settings import PASSWORD_HASH_FLOOR, Settings
from api.platform.auth import secrets
from api.platform.auth.secrets import DEFAULT_COST, HashCost, configure_password_hashing, hash_password


def _settings(**values: object) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def test_the_default_cost_is_argon2_cffi_s_own_and_above_the_floor():
    s = _settings(environment="production", password_hash_time_cost=3, password_hash_memory_kib=65_536)
    assert (s.password_hash_time_cost, s.password_hash_memory_kib) == (3, 65_536)
    assert Settings.model_fields["password_hash_time_cost"].default == DEFAULT_COST.time_cost
    assert Settings.model_fields["password_hash_memory_kib"].default == DEFAULT_COST.memory_kib
    assert Settings.model_fields["password_hash_parallelism"].default == DEFAULT_COST.parallelism
    assert DEFAULT_COST.time_cost >= PASSWORD_HASH_FLOOR[0]
    assert DEFAULT_COST.memory_kib >= PASSWORD_HASH_FLOOR[1]


@pytest.mark.parametrize(
    "weaker",
    [
        {"password_hash_time_cost": 1},
        {"password_hash_memory_kib": 19_455},
        {"password_hash_time_cost": 1, "password_hash_memory_kib": 64, "password_hash_parallelism": 1},
    ],
)
@pytest.mark.parametrize("environment", ["local", "production", "staging"])
def test_a_cost_below_the_floor_refuses_to_start_outside_tests(environment, weaker):
    with pytest.raises(ValidationError, match="OWASP"):
        _settings(environment=environment, **weaker)


def test_a_test_environment_may_hash_cheaply_but_not_with_fewer_than_8_kib_per_lane():
    assert _settings(environment="test", password_hash_time_cost=1, password_hash_memory_kib=64).environment == "test"
    with pytest.raises(ValidationError, match="per lane"):
        _settings(environment="test", password_hash_memory_kib=16, password_hash_parallelism=4)


def test_new_hashes_take_the_configured_cost_and_old_ones_still_verify():
    before = secrets._hashing.cost
    try:
        configure_password_hashing(HashCost(time_cost=2, memory_kib=19_456, parallelism=1))
        strong = hash_password("pw one")
        assert (extract_parameters(strong).time_cost, extract_parameters(strong).memory_cost) == (2, 19_456)
        configure_password_hashing(HashCost(time_cost=1, memory_kib=64, parallelism=1))
        cheap = hash_password("pw one")
        assert (extract_parameters(cheap).time_cost, extract_parameters(cheap).memory_cost) == (1, 64)
        # A stored hash carries its parameters: changing the cost never locks anyone out.
        assert secrets.verify_password(strong, "pw one")
        assert not secrets.verify_password(strong, "pw two")
        # An unknown user is checked against a dummy hash of the configured cost (same time either way).
        assert not secrets.verify_password(None, "pw one")
        assert extract_parameters(secrets._hashing.dummy_hash).memory_cost == 64
    finally:
        configure_password_hashing(before)
