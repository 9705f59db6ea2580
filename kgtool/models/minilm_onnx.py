"""The numpy BERT encoder's forward pass as an ONNX graph, run by onnxruntime (the `onnx` extra).

Why: embedding passages at ingestion is dense matrix work over ~120 tokens a
passage. onnxruntime runs the same products with fused kernels and uses
every core with threads that release the GIL, so the ingest's extraction
(Python) and embedding overlap. The graph is written here from the model
directory's safetensors weights with `onnx.helper`, node by node the
computation of kgtool.models.minilm.NumpyBertEncoder._forward (no torch, no
exporter): the vectors agree with numpy's to float32 rounding
(tests/test_embed_onnx.py). It is built once and cached under
<shared cache>/models (every home's: kgtool.config.default_cache), keyed by the weights file's size and time.

Tokenising, length-sorted batching and mean pooling stay those of the numpy
encoder (this class subclasses it and replaces `_forward`).
"""
from __future__ import annotations

import hashlib
import math
import os
import threading
from pathlib import Path

import numpy as np

from kgtool.errors import MissingExtraError
from kgtool.models.minilm import NumpyBertEncoder

OPSET = 17  # LayerNormalization is a standard op from 17


def _require_onnx():
    # onnx itself is imported only to build the graph file once (build_graph): importing it pulls in
    # ml_dtypes, 1-2.5 s of a new process's answer on this machine, for a file that is already cached
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        raise MissingExtraError("onnx and onnxruntime", "onnx", "the onnxruntime MiniLM embedder") from exc
    if not onnx_available():
        raise MissingExtraError("onnx and onnxruntime", "onnx", "the onnxruntime MiniLM embedder")


def onnx_available() -> bool:
    import importlib.util

    return all(importlib.util.find_spec(m) is not None for m in ("onnx", "onnxruntime"))


class OnnxBertEncoder(NumpyBertEncoder):
    """NumpyBertEncoder whose forward pass runs in onnxruntime (threads: all cores unless given).

    `encode(texts, threads=k)` runs on a session of k intra-op threads instead (one session per
    thread count, built on first use from the same graph file). A few dozen phrases of one
    answer cost less CPU on one thread: with two, on a 2-core machine shared with a database
    and other work, the threads spent their time waiting for each other (measured in CPU
    seconds under load 12-15: 37 three-word phrases 66 ms on one thread, 127 ms on two, 122 ms
    in numpy), while a large batch (passages at ingestion) gains from every core.
    """

    def __init__(self, directory: str | Path, *, cache_dir: str | Path, batch_size: int = 64,
                 threads: int | None = None):
        _require_onnx()
        super().__init__(directory, batch_size=batch_size)
        self.cache_dir = Path(cache_dir)
        self.threads = threads or os.cpu_count() or 1
        self._sessions: dict[int, object] = {}
        self._lock = threading.Lock()

    def model_path(self) -> Path:
        weights = self.directory / "model.safetensors"
        stat = weights.stat()
        key = hashlib.sha1(f"{weights.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{OPSET}".encode()).hexdigest()[:16]
        return self.cache_dir / f"bert-{key}.onnx"

    def _load_session(self, threads: int | None = None):
        threads = int(threads or self.threads)
        with self._lock:
            session = self._sessions.get(threads)
            if session is None:
                import onnxruntime as ort

                path = self.model_path()
                if not path.is_file():
                    from kgtool.core.files import write_atomic

                    data = build_graph(self._w, self).SerializeToString()
                    # a part file renamed over the name: another process sees the whole file or none, and a
                    # full disk leaves nothing behind (kgtool.core.files)
                    write_atomic(path, lambda fh: fh.write(data), size_hint=len(data), what="the ONNX model cache")
                options = ort.SessionOptions()
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                # idle intra-op threads sleep instead of spinning: on 2 cores shared with the database and
                # the ingest's extraction, spinning threads burnt CPU the others needed (a 120-passage batch
                # on 2 threads under load ~7: 17-18 CPU s without spinning, 19-20 s with)
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                session = self._sessions[threads] = ort.InferenceSession(str(path), options,
                                                                         providers=["CPUExecutionProvider"])
        return session

    def encode(self, texts, threads: int | None = None) -> np.ndarray:
        """One unit-length float32 row per text, on a session of `threads` (default: the encoder's)."""
        session = self._load_session(threads)
        return self._encode(texts, lambda ids, mask: self._pooled(session, ids, mask))

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._pooled(self._load_session(), ids, mask)

    @staticmethod
    def _pooled(session, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        (hidden,) = session.run(None, {"input_ids": ids.astype(np.int64), "mask": mask})
        summed = (hidden * mask[:, :, None]).sum(axis=1)
        return summed / np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)


def build_graph(w: dict[str, np.ndarray], enc: NumpyBertEncoder):
    """The ONNX model of NumpyBertEncoder._forward up to the last hidden states (before pooling)."""
    from onnx import TensorProto, helper, numpy_helper

    nodes, inits = [], []
    count = iter(range(1 << 30))

    def const(name: str, value) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def op(kind: str, inputs: list[str], **attrs) -> str:
        out = f"t{next(count)}"
        nodes.append(helper.make_node(kind, inputs, [out], **attrs))
        return out

    def linear(x: str, name: str) -> str:
        return op("Add", [op("MatMul", [x, const(name + ".weight", w[name + ".weight"])]),
                          const(name + ".bias", w[name + ".bias"])])

    def layer_norm(x: str, name: str) -> str:
        return op("LayerNormalization", [x, const(name + ".weight", w[name + ".weight"]),
                                         const(name + ".bias", w[name + ".bias"])], axis=-1, epsilon=enc.eps)

    dim, heads = enc.dim, enc.heads
    head_dim = dim // heads
    # embeddings: word + position (first `width` rows) + token type 0
    width = op("Gather", [op("Shape", ["input_ids"]), const("one_i", np.array(1, dtype=np.int64))], axis=0)
    positions = op("Range", [const("zero_i", np.array(0, dtype=np.int64)), width,
                             const("step_i", np.array(1, dtype=np.int64))])
    x = op("Add", [op("Gather", [const("word", w["embeddings.word_embeddings.weight"]), "input_ids"]),
                   op("Gather", [const("pos", w["embeddings.position_embeddings.weight"]), positions])])
    x = op("Add", [x, const("type0", w["embeddings.token_type_embeddings.weight"][0])])
    x = layer_norm(x, "embeddings.LayerNorm")
    # padded keys get -1e9, as in numpy: (1 - mask) * -1e9, shaped (batch, 1, 1, width)
    key_bias = op("Mul", [op("Sub", [const("one_f", np.array(1.0, dtype=np.float32)), "mask"]),
                          const("neg", np.array(-1e9, dtype=np.float32))])
    key_bias = op("Unsqueeze", [key_bias, const("axes12", np.array([1, 2], dtype=np.int64))])
    split_shape = const("split_shape", np.array([0, 0, heads, head_dim], dtype=np.int64))
    merge_shape = const("merge_shape", np.array([0, 0, dim], dtype=np.int64))
    scale = const("scale", np.array(1.0 / math.sqrt(head_dim), dtype=np.float32))
    half = const("half", np.array(0.5, dtype=np.float32))
    root2 = const("root2", np.array(math.sqrt(2.0), dtype=np.float32))
    for layer in range(enc.layers):
        p = f"encoder.layer.{layer}."

        def heads_of(name: str, perm=(0, 2, 1, 3)) -> str:
            y = op("Reshape", [linear(x, p + f"attention.self.{name}"), split_shape])
            return op("Transpose", [y], perm=list(perm))

        q, k, v = heads_of("query"), heads_of("key", (0, 2, 3, 1)), heads_of("value")
        scores = op("Add", [op("Mul", [op("MatMul", [q, k]), scale]), key_bias])
        probs = op("Softmax", [scores], axis=-1)
        context = op("Reshape", [op("Transpose", [op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), merge_shape])
        x = layer_norm(op("Add", [linear(context, p + "attention.output.dense"), x]), p + "attention.output.LayerNorm")
        inner = linear(x, p + "intermediate.dense")
        gelu = op("Mul", [op("Mul", [inner, half]), op("Add", [op("Erf", [op("Div", [inner, root2])]),
                                                               const(f"one_{layer}", np.array(1.0, dtype=np.float32))])])
        x = layer_norm(op("Add", [linear(gelu, p + "output.dense"), x]), p + "output.LayerNorm")
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    graph = helper.make_graph(
        nodes, "bert", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "width"]),
                        helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "width"])],
        [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", "width", dim])], initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="kgtool")
