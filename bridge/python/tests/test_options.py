"""Command-line env options (``--opt KEY=VALUE``), shared by the example scripts."""
import pytest

from recovery_gym import parse_option_pairs


def test_values_are_json_when_they_parse_and_text_otherwise():
    got = parse_option_pairs(["max_steps=20", "fault=P3", "hidden_info=true", "tools=[1, 2]", "note=a=b"])
    assert got == {"max_steps": 20, "fault": "P3", "hidden_info": True, "tools": [1, 2], "note": "a=b"}


def test_a_later_key_wins():
    assert parse_option_pairs(["seed=1", "seed=2"]) == {"seed": 2}


@pytest.mark.parametrize("item", ["max_steps", "=3"])
def test_an_item_without_a_key_and_value_names_the_flag(item):
    with pytest.raises(ValueError, match=r"--eval-opt needs KEY=VALUE"):
        parse_option_pairs([item], flag="--eval-opt")
