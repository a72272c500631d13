"""The spec-string parser: exact parses, clear errors, and fuzzing (never another exception)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mctslab
from mctslab import specstr
from mctslab.errors import SpecError


@pytest.mark.parametrize(
    ("text", "name", "params"),
    [
        ("nogo", "nogo", {}),
        ("nogo()", "nogo", {}),
        (" nogo( size = 9 ) ", "nogo", {"size": "9"}),
        ("hex(size=11,swap=true)", "hex", {"size": "11", "swap": "true"}),
        ("mcts(c=0.7,formula=paper)", "mcts", {"c": "0.7", "formula": "paper"}),
        ("2048", "2048", {}),
    ],
)
def test_parse_accepts(text, name, params):
    assert specstr.parse(text) == (name, params)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty spec"),
        ("nogo(", "closing"),
        ("nogo)", "without '('"),
        ("nogo(size)", "key=value"),
        ("nogo(size=)", "no value"),
        ("nogo(size=9,size=7)", "twice"),
        ("nogo(a=(1))", "parentheses"),
        ("no go", "bad name"),
        ("nogo(9=size)", "bad key"),
        ("nogo(size==9)", "key=value"),
    ],
)
def test_parse_rejects_with_reason(text, needle):
    with pytest.raises(SpecError, match=None) as info:
        specstr.parse(text)
    assert needle in str(info.value)


def test_non_string_is_rejected():
    with pytest.raises(SpecError, match="must be a string"):
        specstr.parse(9)


def test_unknown_game_names_the_known_ones():
    with pytest.raises(SpecError) as info:
        mctslab.load_game("nimm(n=3)")
    assert "did you mean 'nim'" in str(info.value)
    assert "known games:" in str(info.value)


def test_bad_values_name_the_key_and_the_allowed_range():
    with pytest.raises(SpecError) as info:
        mctslab.load_game("nim(n=0)")
    msg = str(info.value)
    assert "n=0" in msg and "n: int >=1 <=10000" in msg and "default 30" in msg
    with pytest.raises(SpecError, match=r"unknown key\(s\) size"):
        mctslab.load_game("nim(size=9)")
    with pytest.raises(SpecError, match="coin=maybe"):
        mctslab.load_game("nim(coin=maybe)")


def test_canonical_spec_string_round_trips():
    for name in mctslab.registered_games():
        game = mctslab.load_game(name)
        again = mctslab.load_game(game.spec.spec_string)
        assert again.spec == game.spec
        assert specstr.parse(game.spec.spec_string)[0] == name


_text = st.text(alphabet=st.sampled_from("nimogxe(),=_ 019-.tTrufaslzk"), max_size=30)


@given(st.one_of(_text, st.text(max_size=30)))
def test_fuzz_load_game_only_raises_spec_error(text):
    """Any string either loads a game or raises SpecError with a message — nothing else."""
    try:
        game = mctslab.load_game(text)
    except SpecError as exc:
        assert str(exc)
    else:
        assert game.spec.name in mctslab.registered_games()


@given(
    st.sampled_from(sorted(mctslab.registered_games())),
    st.dictionaries(
        st.sampled_from(["n", "k", "coin", "size", "swap", "x"]),
        st.one_of(st.integers(-5, 50).map(str), st.sampled_from(["true", "no", "1.5", "abc"])),
        max_size=3,
    ),
)
def test_fuzz_parameters_only_raise_spec_error(name, params):
    text = specstr.format_spec(name, params)
    try:
        mctslab.load_game(text)
    except SpecError as exc:
        assert "allowed:" in str(exc) or "unknown key" in str(exc)
