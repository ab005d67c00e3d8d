"""What /ping answers for the instance, from the status of every front end (`frontend.Server.status`).

Front end 0 answers /ping for the instance (frontend.py) and answers it for the other front ends, which forward their
/ping to it (siblings.py): both use this one rule, kept apart so that neither module imports the other for it.
"""
import json


def instance_answer(statuses, front_ends, answering_pid):
    """/ping's (status, JSON body) for the instance from every front end's status (`Server.status`); a front end that
    did not answer is missing from `statuses`. See "Health" in serving/README.md for why these rules.

    - A worker that failed to load REPLACE_AFTER_FAILED_LOADS times in a row: unhealthy, to be replaced.
    - Until every worker of every front end has loaded once: unhealthy, so the instance enters service at full capacity.
    - No worker serving (all restarting, hung and being killed, or their front ends down): unhealthy.
    - Otherwise healthy, at the capacity of the workers serving: each front end's queue bound shrinks with them.
    """
    broken = next((s["broken"] for s in statuses if s["broken"]), None)
    workers = sorted((w for s in statuses for w in s["workers"]), key=lambda w: w["worker"])
    serving = sum(1 for w in workers if w["loaded"])
    if broken:
        healthy, reason = False, broken
    elif any(s["starting"] for s in statuses):
        healthy, reason = False, "starting: not every worker has loaded its model"
    elif serving == 0:
        healthy, reason = False, "no worker is serving: every worker is restarting"
    else:
        healthy, reason = True, None
    body = {
        "healthy": healthy, "queued": sum(s["queued"] for s in statuses), "queueLimit": sum(s["queueLimit"] for s in statuses),
        "heldBytes": sum(s["heldBytes"] for s in statuses), "servingWorkers": serving, "workers": workers,
        "frontEnds": sum(1 for s in statuses if not s.get("down")), "plannedFrontEnds": front_ends, "frontEnd": answering_pid,
        "queues": [{"frontEnd": s["frontEnd"], "pid": s["pid"], "queued": s["queued"], "queueLimit": s["queueLimit"],
                    **({"down": True} if s.get("down") else {})} for s in statuses],
        **({"reason": reason} if reason else {}),
    }
    return (200 if healthy else 503), json.dumps(body).encode("utf-8")
