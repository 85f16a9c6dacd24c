# cleave-test: function=forward dims=n=3
# Shaped like Segment Anything's forward (corpus sam-vit-*): an effect object input `_io` passed
# through, a symbolic batch `n`, weight preprocessing (permute_dims of weight inputs) and a nested
# tuple result ((tensor, tensor), (object,)). Current TVMScript (out_dtype=None, not "void").
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def _initialize_effect() -> R.Tuple(R.Object):
        with R.dataflow():
            _io: R.Object = R.null_value()
            lv: R.Tuple(R.Object) = (_io,)
            gv: R.Tuple(R.Object) = lv
            R.output(gv)
        return gv

    @R.function
    def forward(x: R.Tensor(("n", 16), dtype="float32"), _io: R.Object, w1: R.Tensor((16, 32), dtype="float32"), w2: R.Tensor((32, 8), dtype="float32")) -> R.Tuple(R.Tuple(R.Tensor(("n", 8), dtype="float32"), R.Tensor((8, 32), dtype="float32")), R.Tuple(R.Object)):
        n = T.int64()
        with R.dataflow():
            wt: R.Tensor((32, 16), dtype="float32") = R.permute_dims(w1, axes=None)
            w1b: R.Tensor((16, 32), dtype="float32") = R.permute_dims(wt, axes=None)
            h: R.Tensor((n, 32), dtype="float32") = R.matmul(x, w1b, out_dtype=None)
            r: R.Tensor((n, 32), dtype="float32") = R.nn.relu(h)
            s: R.Tensor((n, 32), dtype="float32") = R.sin(r)
            c: R.Tensor((n, 32), dtype="float32") = R.cos(r)
            m: R.Tensor((n, 32), dtype="float32") = R.multiply(s, c)
            y: R.Tensor((n, 8), dtype="float32") = R.matmul(m, w2, out_dtype=None)
            w2t: R.Tensor((8, 32), dtype="float32") = R.permute_dims(w2, axes=None)
            gv: R.Tuple(R.Tuple(R.Tensor((n, 8), dtype="float32"), R.Tensor((8, 32), dtype="float32")), R.Tuple(R.Object)) = (y, w2t), (_io,)
            R.output(gv)
        return gv
