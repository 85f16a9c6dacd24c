# cleave-test: function=main
# A matmul / add / relu / softmax chain: ops whose vdevices TVM 0.27 keeps through legalization,
# so placed.relax.py runs on two llvm vdevices.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), w1: R.Tensor((16, 32), dtype="float32"), b1: R.Tensor((32,), dtype="float32"), w2: R.Tensor((32, 8), dtype="float32")) -> R.Tensor((4, 8), dtype="float32"):
        with R.dataflow():
            h: R.Tensor((4, 32), dtype="float32") = R.matmul(x, w1, out_dtype=None)
            hb: R.Tensor((4, 32), dtype="float32") = R.add(h, b1)
            r: R.Tensor((4, 32), dtype="float32") = R.nn.relu(hb)
            s: R.Tensor((4, 32), dtype="float32") = R.nn.softmax(r, axis=-1)
            y: R.Tensor((4, 8), dtype="float32") = R.matmul(s, w2, out_dtype=None)
            R.output(y)
        return y
