"""The blind-2 and later templates (kit.synthetic_changes_blind2 and on): each a file
of its own with the same keys and placeholders as kit.synthetic_changes.TEMPLATES."""
import importlib
import string

import pytest

from kit.synthetic_changes import SPLITS, TEMPLATES

# split -> its file's templates: "blind-2" -> kit.synthetic_changes_blind2.BLIND2_TEMPLATES ...
BLIND = {s: getattr(importlib.import_module(f"kit.synthetic_changes_blind{s[6:]}"),
                    f"BLIND{s[6:]}_TEMPLATES") for s in SPLITS if s.startswith("blind-")}


def _fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("split", BLIND)
def test_same_keys(split):
    assert set(BLIND[split]) == set(TEMPLATES)


@pytest.mark.parametrize("split", BLIND)
def test_every_template_formats_with_the_other_splits_placeholders(split):
    others = {t for other, templates in BLIND.items() if other != split
              for split_templates in templates.values() for t in split_templates}
    for event, splits in TEMPLATES.items():
        allowed = set().union(*(_fields(t) for split in splits for t in split))
        existing = {t for split in splits for t in split} | others
        templates = BLIND[split][event]
        assert len(templates) >= max(3, *(len(split) for split in splits)), event
        assert len(set(templates)) == len(templates), event
        for template in templates:
            assert isinstance(template, str) and template not in existing, (event, template)
            assert "v" in _fields(template) and _fields(template) <= allowed, (event, template)
            text = template.format(**{name: f"<{name}>" for name in allowed})
            assert "<v>" in text and "{" not in text and "}" not in text, (event, template)
