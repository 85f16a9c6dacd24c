# from tvm.script import ir as I
# from tvm.script import relax as R

metadata = tvm.ir.load_json("""{
  "root": 1,
  "nodes": [
    {"type_key": ""},
    {"type_key": "Map", "keys": ["relax.expr.Constant"], "data": [2]},
    {"type_key": "Array", "data": [3]},
    {"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "0", "data": "0", "span": "0", "struct_info_": "0"}}
  ],
  "b64ndarrays": ["P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQAEAAAAAAAAAAQAAAAAAAAAAACAPw=="],
  "attrs": {"tvm_version": "0.20.0"}
}""")
# Metadata omitted. Use show_meta=True in script() method to show it.

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), I.vdevice("cuda", 1)]})
    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), "float32", "cuda:1"):
        n = T.int64()
        with R.dataflow():
            lv: R.Tensor((n, 4), dtype="float32") = R.multiply(x, metadata["relax.expr.Constant"][0])
            lv1: R.Tensor((n, 4), "float32", "cuda:1") = R.to_vdevice(lv, "cuda:1")
            gv: R.Tensor((n, 4), "float32", "cuda:1") = R.nn.softmax(lv1, axis=-1)
            R.output(gv)
        return gv
