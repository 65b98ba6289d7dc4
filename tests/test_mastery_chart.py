"""The mastery chart: a real PNG, narrow for a phone, Chinese topic names drawn, 1 to 20 topics."""

from __future__ import annotations

import struct

from bot.charts import MatplotlibCharts, drawable
from bot.core.kernel.models import TopicMastery

CHINESE = ["张量", "自动求导", "数据加载", "模型部署", "性能优化", "训练循环", "模块与参数",
           "设备与CUDA", "混合精度", "分布式训练"]
ENGLISH = ["tensors", "autograd", "data", "deployment", "performance", "training-loop",
           "nn-module", "devices", "mixed-precision", "distributed"]
TWENTY = [TopicMastery(name, 3 + 2 * i, i % 3 and (7 * i) % (3 + 2 * i) + 1, i % 4)
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
