"""The mastery chart: a real PNG, narrow for a phone, Chinese topic names drawn, 1 to 20 topics."""

from __future__ import annotations

import struct

from bot.charts import MatplotlibCharts, drawable
from bot.core.kernel.models import TopicMastery

CHINESE = ["张量", "自动求导", "数据加载", "模型部署", "性能优化", "训练循环", "模块与参数",
           "设备与CUDA", "混合精度", "分布式训练"]
ENGLISH = ["tensors", "autograd", "data", "deployment", "performance", "training-loop",
           "nn-module", "devices", "mixed-precision", "distributed"]
TWENTY = [TopicMastery(name, 3 + 2 * i, i % 3 and (7 * i) % (3 + 2 * i) + 1, i % 4,
                       first_try=i % 3 and (7 * i) % (3 + 2 * i))
          for i, name in enumerate(CHINESE + ENGLISH)]


def _png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", png[16:24])


def test_twenty_chinese_and_english_topics_fit_a_phone_width_and_grow_in_height():
    chart = MatplotlibCharts().mastery(TWENTY, title="各主题掌握度 · 王小明", locale="zh-CN")
    width, height = _png_size(chart.png)
    assert width <= 1000 and height >= 20 * 80  # narrow, and a readable row per topic
    assert chart.name == "mastery.png"


def test_chinese_topic_names_are_drawable_with_the_installed_fonts():
    assert all(drawable(name) == name for name in CHINESE)


def test_a_member_with_one_answer_gets_a_small_chart():
    chart = MatplotlibCharts().mastery([TopicMastery("autograd", 1, 1, 0)],
                                       title="Mastery by topic · Ada", locale="en")
    width, height = _png_size(chart.png)
    assert width <= 1000 and 200 <= height <= 600


def test_a_long_chinese_name_in_the_title_stays_inside_the_image():
    from bot.charts import mastery_figure

    name = "王小明的一个非常非常长的名字用来测试图表是否会被截断"
    figure = mastery_figure([TopicMastery("autograd", 1, 0, 0)],
                            title=f"Mastery by topic · {name}", locale="en")
    figure.canvas.draw()
    title = figure.texts[0]
    assert title.get_window_extent().x1 <= figure.bbox.x1
    assert title.get_text().endswith("…") and title.get_text().startswith("Mastery by topic · 王")


def test_a_short_title_is_drawn_whole():
    from bot.charts import mastery_figure

    figure = mastery_figure([TopicMastery("autograd", 1, 1, 0)], title="各主题掌握度 · 王小明",
                            locale="zh-CN")
    assert figure.texts[0].get_text() == "各主题掌握度 · 王小明"


def test_the_share_axis_ends_at_100_percent_and_every_label_stays_inside_the_chart():
    from bot.charts import mastery_figure

    topics = [TopicMastery("autograd", 120, 120, 30, first_try=120),
              TopicMastery("张量", 100, 55, 0, first_try=55), TopicMastery("data", 9, 0, 0),
              TopicMastery("training-loop", 200, 150, 12, first_try=150)]
    for locale, show_due in (("en", True), ("zh-CN", True), ("en", False)):
        figure = mastery_figure(topics, title="Mastery", locale=locale, show_due=show_due)
        figure.canvas.draw()
        axes = figure.axes[0]
        assert axes.get_xlim() == (0, 100)
        right = axes.get_window_extent().x1
        labels = [text for text in axes.texts if "%" in text.get_text()]
        assert len(labels) == len(topics)
        assert all(label.get_window_extent().x1 <= right + 1 for label in labels)
        left = axes.get_window_extent().x0
        assert all(label.get_window_extent().x0 >= left - 1 for label in labels)


def test_a_solve_after_misses_draws_an_empty_bar_labelled_first_try():
    from bot.charts import mastery_figure

    figure = mastery_figure([TopicMastery("autograd", 1, 1, 0, first_try=0)],
                            title="Mastery by topic · Ada", locale="en")
    axes = figure.axes[0]
    assert [t.get_text() for t in axes.texts] == ["0% · 0/1 first try · 0 due"]
    assert axes.get_xlabel() == "Right on the first try (%)"


def test_charts_asked_for_from_many_threads_are_drawn_on_one(monkeypatch):
    # matplotlib keeps fonts per thread and each allocating thread gets its own malloc arena:
    # charts drawn from the worker pool's threads grew a process without bound.
    import threading
    from concurrent.futures import ThreadPoolExecutor

    import bot.charts as charts

    drawn_on: set[str] = set()
    real = charts.mastery_chart

    def recording(*args, **kwargs):
        drawn_on.add(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(charts, "mastery_chart", recording)
    renderer = MatplotlibCharts()
    with ThreadPoolExecutor(4) as pool:
        pngs = list(pool.map(lambda i: renderer.mastery(
            [TopicMastery("autograd", 1, 1, 0)], title=f"t{i}", locale="en"), range(8)))
    assert all(p.png.startswith(b"\x89PNG") for p in pngs)
    assert len(drawn_on) == 1 and next(iter(drawn_on)).startswith("charts")


def test_preload_draws_a_chart_in_the_background():
    chart = MatplotlibCharts().preload().result(timeout=60)
    assert chart.png.startswith(b"\x89PNG")
