"""bench/compare.py: figures are flattened per backend and shown side by side with a ratio."""

from bench.compare import figures, flatten, table


def test_flatten_keeps_numbers_and_drops_booleans():
    record = {"a": 1, "ok": True, "nested": {"b": 2.5, "list": [3, 4]}, "name": "x"}
    assert dict(flatten(record)) == {"a": 1.0, "nested.b": 2.5, "nested.list[0]": 3.0,
                                     "nested.list[1]": 4.0}


def test_figures_are_keyed_by_backend():
    runs = figures([{"backend": "sqlite", "ms": 2}, {"backend": "postgresql", "ms": 5}])
    assert runs == {"sqlite:ms": 2.0, "postgresql:ms": 5.0}


def test_table_shows_medians_and_ratio_of_work_to_ref():
    ref = [{"sqlite:ms": 2.0}, {"sqlite:ms": 4.0}, {"sqlite:ms": 3.0}]
    work = [{"sqlite:ms": 1.5}, {"sqlite:ms": 1.5}, {"sqlite:ms": 9.0}]
    row = table(ref, work, "HEAD~1").splitlines()[1].split()
    assert row == ["sqlite:ms", "3", "1.5", "0.50"]


def test_a_figure_missing_on_one_side_is_left_out():
    out = table([{"x": 1.0, "only_ref": 2.0}], [{"x": 2.0}], "abc")
    assert "only_ref" not in out
    assert out.splitlines()[1].split() == ["x", "1", "2", "2.00"]


def test_options_before_the_double_dash_are_the_tools_and_after_it_the_benchs():
    from bench.compare import split_argv

    assert split_argv(["HEAD~1", "--rounds", "2", "--", "core", "--answers", "10"]) == (
        ["HEAD~1", "--rounds", "2"], ["core", "--answers", "10"])
    assert split_argv(["HEAD~1"]) == (["HEAD~1"], [])
