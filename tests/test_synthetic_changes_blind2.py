"""The blind-2 templates (kit.synthetic_changes_blind2): same keys and placeholders as
kit.synthetic_changes.TEMPLATES."""
import string

from kit.synthetic_changes import TEMPLATES
from kit.synthetic_changes_blind2 import BLIND2_TEMPLATES


def _fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_same_keys():
    assert set(BLIND2_TEMPLATES) == set(TEMPLATES)


def test_every_template_formats_with_the_other_splits_placeholders():
    for event, splits in TEMPLATES.items():
        allowed = set().union(*(_fields(t) for split in splits for t in split))
        existing = {t for split in splits for t in split}
        templates = BLIND2_TEMPLATES[event]
        assert len(templates) >= max(3, *(len(split) for split in splits)), event
        for template in templates:
            assert isinstance(template, str) and template not in existing, (event, template)
            assert "v" in _fields(template) and _fields(template) <= allowed, (event, template)
            text = template.format(**{name: f"<{name}>" for name in allowed})
            assert "<v>" in text and "{" not in text and "}" not in text, (event, template)
