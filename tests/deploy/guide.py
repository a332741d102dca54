"""The commands of the deployment guide (docs/deployment.md), read from its marked code
blocks, so the tests run exactly what the guide tells people to run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- deploy: ([a-z-]+) -->\n```sh\n(.*?)```", re.DOTALL)
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=", re.MULTILINE)


def deployment_blocks(guide: Path = ROOT / "docs" / "deployment.md") -> dict[str, str]:
    text = guide.read_text(encoding="utf-8")
    blocks: dict[str, str] = {}
    for name, body in BLOCK.findall(text):
        assert name not in blocks, f"two blocks of the deployment guide are marked deploy: {name}"
        blocks[name] = body
    return blocks


def environment_names(block: str) -> set[str]:
    """The variables the environment file of the deployment guide sets."""
    return set(ASSIGNMENT.findall(block))


def script(*bodies: str) -> list[str]:
    """A bash command line running the blocks in one shell, stopping at the first failure
    (comments and `\\` continuations as a reader's shell would take them)."""
    return ["bash", "-euo", "pipefail", "-c", "\n".join(bodies)]
