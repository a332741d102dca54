"""The gate's rule in the reader's language, for the page and the PDF alike. A report keeps
the rule by name (`rule_name`) and, as data, as an English sentence (`rule`), which reports
stored before the name existed are left with."""

from django.utils.translation import gettext as _


def gate_rule_text(gate: dict) -> str:
    threshold = f"{gate['threshold']:.2f}"
    if gate.get("rule_name") == "point":
        return _("agreement (point estimate) ≥ %(t)s") % {"t": threshold}
    if gate.get("rule_name") == "lower_bound":
        return _("lower bound of the Wilson 95%% interval ≥ %(t)s") % {"t": threshold}
    return gate["rule"]
