"""The commands of the README's Deployment section, read from its marked code blocks, so
the tests run exactly what the README tells people to run."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLOCK = re.compile(r"<!-- deploy: ([a-z-]+) -->\n```sh\n(.*?)```", re.DOTALL)
ASSIGNMENT = re.compile(r"^([A-Z][A-Z0-9_]*)=", re.MULTILINE)


def deployment_blocks(readme: Path = ROOT / "README.md") -> dict[str, str]:
    text = readme.read_text(encoding="utf-8")
    blocks: dict[str, str] = {}
    for name, body in BLOCK.findall(text):
        assert name not in blocks, f"two README blocks are marked deploy: {name}"
        blocks[name] = body
    return blocks


def environment_names(block: str) -> set[str]:
    """The variables the environment file of the README sets."""
    return set(ASSIGNMENT.findall(block))


def script(*bodies: str) -> list[str]:
    """A bash command line running the blocks in one shell, stopping at the first failure
    (comments and `\\` continuations as a reader's shell would take them)."""
    return ["bash", "-euo", "pipefail", "-c", "\n".join(bodies)]
