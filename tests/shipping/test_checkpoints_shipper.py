"""The shipper's thread sends the table's signed checkpoints after each round of events, with
the table's public key; offering another key than the registered one stops it with an alarm."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.floor_wire import register_key
from dealer_assist.shipping.shipper import Shipper
from tests.shipping.test_checkpoints import alarms, central, signing_log
from tests.shipping.test_shipper import wait_for


def test_the_shippers_thread_ships_signed_checkpoints_as_they_come(floor, sample, tmp_path):
    key = Ed25519PrivateKey.generate()
    table, dsn = floor.add_table()
    log = signing_log(tmp_path, table, key, sample[:250])
    shipper = Shipper(str(log.path), table, dsn, idle=0.05,
                      public_key=key.public_key()).start()
    try:
        wait_for(lambda: [seq for _, seq, _, _ in central(floor, table)] == [100, 200], 20.0)
        for at in range(250, len(sample), 100):
            log.append_many(sample[at:at + 100])
        log.checkpoint()  # as the table does at a shoe's end
        wait_for(lambda: len(central(floor, table)) == len(log.signed_checkpoints()), 20.0)
        assert shipper.lag().alarm is None
    finally:
        shipper.stop()
        log.close()
    assert [seq for _, seq, _, _ in central(floor, table)][-1] == len(sample)


def test_another_key_stops_the_shipper_with_an_alarm(floor, sample, tmp_path):
    key = Ed25519PrivateKey.generate()
    table, dsn = floor.add_table()
    register_key(floor.owner, table, Ed25519PrivateKey.generate().public_key())
    log = signing_log(tmp_path, table, key, sample)
    shipper = Shipper(str(log.path), table, dsn, idle=0.05,
                      public_key=key.public_key()).start()
    try:
        wait_for(lambda: shipper.lag().alarm is not None, 20.0)
    finally:
        shipper.stop()
        log.close()
    assert "another public key" in str(shipper.lag().alarm)
    assert central(floor, table) == [] and "never replaced silently" in alarms(floor, table)[0]
