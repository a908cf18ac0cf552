"""save_graph_to_dot_file writes DALI's dot text (checked against real DALI byte for byte when
it is installed); save_graph draws an annotated graph with Graphviz or says what is missing."""

import importlib
import pathlib
import shutil

import pytest

import dali
from dali._graph import dot

IMAGES = str(pathlib.Path(dali.__file__).parent / "data" / "images")

EXPECTED_PLAIN = """digraph graphname {
Reader -> __Image_0;
Reader -> __MakeContiguous_CpuToCpu_Reader_1_;

__Image_0 -> __Resize_1;

__Resize_1 -> __MakeContiguous_CpuToCpu___Resize_1;



}
"""


def _pipe(pkg_name):
    pkg = importlib.import_module(pkg_name)

    @pkg.pipeline_def(batch_size=2, num_threads=1, device_id=None)
    def pipe():
        jpegs, labels = pkg.fn.readers.file(file_root=IMAGES, name="Reader")
        images = pkg.fn.decoders.image(jpegs)
        return pkg.fn.resize(images, resize_x=10), labels

    return pipe()


def test_plain_text_as_dali_writes_it(tmp_path):
    path = tmp_path / "g.dot"
    _pipe("dali").save_graph_to_dot_file(str(path))
    assert path.read_text() == EXPECTED_PLAIN


def test_tensors_and_colors(tmp_path):
    path = tmp_path / "g.dot"
    _pipe("dali").save_graph_to_dot_file(str(path), show_tensors=True, use_colors=True)
    text = path.read_text()
    assert 'Reader[color="blue"];\nReader -> __Image_0[style=dotted];' in text
    assert "Reader_1__cpu[shape=box];\nReader -> Reader_1__cpu[label=1];\n" \
           "Reader_1__cpu -> __MakeContiguous_CpuToCpu_Reader_1_[label=0];" in text
    assert "__MakeContiguous_CpuToCpu___Resize_1 -> " \
           "contiguous_cpu_to_cpu___Resize_1_cpu[label=0];" in text


@pytest.mark.oracle
@pytest.mark.parametrize("show_tensors, use_colors", [(False, False), (True, True),
                                                      (True, False), (False, True)])
def test_same_as_dali(tmp_path, show_tensors, use_colors):
    ours, theirs = tmp_path / "ours.dot", tmp_path / "theirs.dot"
    _pipe("dali").save_graph_to_dot_file(str(ours), show_tensors=show_tensors,
                                         use_colors=use_colors)
    _pipe("nvidia.dali").save_graph_to_dot_file(str(theirs), show_tensors=show_tensors,
                                                use_colors=use_colors)
    assert ours.read_text() == theirs.read_text()


def test_save_graph_annotates_after_a_run(tmp_path):
    pipe = _pipe("dali")
    path = tmp_path / "g.dot"
    pipe.save_graph(str(path))
    before = path.read_text()
    assert '"Reader" -> "__Image_0" [label=""];' in before and "bottleneck" not in before
    pipe.run()
    pipe.save_graph(str(path))
    text = path.read_text()
    assert '"Reader" -> "__Image_0" [label="uint8 1-D"];' in text
    assert '"__Image_0" -> "__Resize_1" [label="uint8 3-D HWC"];' in text
    assert text.count('xlabel="bottleneck"') == 1
    assert '"__Resize_1" -> "output 0";' in text and '"Reader" -> "output 1";' in text
    assert '"Reader" [label="Reader\\nreaders.file\\n' in text


def test_save_graph_formats(tmp_path, monkeypatch):
    pipe = _pipe("dali")
    with pytest.raises(ValueError, match="cannot tell the format of"):
        pipe.save_graph(str(tmp_path / "g.jpeg"))
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        pipe.save_graph(str(tmp_path / "g.svg"))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_save_graph_draws_svg(tmp_path):
    path = tmp_path / "g.svg"
    _pipe("dali").save_graph(str(path))
    assert path.read_text().lstrip().startswith(("<?xml", "<svg"))


def test_render_quotes_names():
    assert dot._q('a "b"\nc') == '"a \\"b\\"\\nc"'


def test_show_ids_is_deprecated(tmp_path):
    with pytest.warns(DeprecationWarning, match='"show_ids" is deprecated'):
        _pipe("dali").save_graph_to_dot_file(str(tmp_path / "g.dot"), show_ids=True)
