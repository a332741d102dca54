"""Several people signing up with the same link at the same moment, on the real database:
the row lock lets exactly one of them have an account."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from accounts.invitations import SignUpRefused
from accounts.roles import COORDINATOR, EXPERT
from accounts.services import user_create_with_role
from annotation.services.people import person_invite, person_join
from core.models import AuditEvent

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 6


def test_one_link_makes_one_account_however_many_race_for_it():
    coordinator = user_create_with_role(username="coord", password="x-pass-123", role=COORDINATOR)
    new = person_invite(actor=coordinator, roles=[EXPERT], specialities=[], days=1)
    barrier = threading.Barrier(THREADS)
    made, refused, errors = [], [], []

    def sign_up(i: int) -> None:
        try:
            barrier.wait(timeout=30)
            made.append(
                person_join(
                    token=new.token,
                    username=f"racer{i}",
                    password="calm-river-4821",
                    password2="calm-river-4821",
                )
            )
        except SignUpRefused as exc:
            refused.append(str(exc))
        except Exception as exc:  # reported to the test thread, which fails
            errors.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=sign_up, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(made) == 1 and len(refused) == THREADS - 1
    assert all("already been used" in message for message in refused)
    assert get_user_model().objects.filter(username__startswith="racer").count() == 1
    assert AuditEvent.objects.filter(action="people.invitation_used").count() == 1
