# cleave-test: function=main
# ALBERT-style weight tying: one transposed, scaled weight read by three matmul layers. A cut
# between the layers leaves the weight's preprocessing (permute_dims, multiply: computed from
# weights only) with its first reader; every later stage computes it again from w and s rather
# than receiving it, and the partitioned pipeline must still equal the whole module.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 16), dtype="float32"), b: R.Tensor((16,), dtype="float32"), w: R.Tensor((16, 16), dtype="float32"), s: R.Tensor((16,), dtype="float32")) -> R.Tensor((4, 16), dtype="float32"):
        R.func_attr({"num_input": 2})
        with R.dataflow():
            x0: R.Tensor((4, 16), dtype="float32") = R.add(x, b)
            wt: R.Tensor((16, 16), dtype="float32") = R.permute_dims(w, axes=[1, 0])
            ws: R.Tensor((16, 16), dtype="float32") = R.multiply(wt, s)
            h1: R.Tensor((4, 16), dtype="float32") = R.matmul(x0, ws, out_dtype=None)
            r1: R.Tensor((4, 16), dtype="float32") = R.nn.relu(h1)
            h2: R.Tensor((4, 16), dtype="float32") = R.matmul(r1, ws, out_dtype=None)
            r2: R.Tensor((4, 16), dtype="float32") = R.nn.relu(h2)
            y: R.Tensor((4, 16), dtype="float32") = R.matmul(r2, ws, out_dtype=None)
            R.output(y)
        return y
