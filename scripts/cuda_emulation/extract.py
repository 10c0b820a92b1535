#!/usr/bin/env python3
"""Writes the device code of kernels/tensor_attention.cu and kernels/small_linear.cu as C++ for
the CPU emulation (shim.h): #include lines dropped, everything from the host launchers on cut,
the dynamic shared memory declaration pointed at the emulator's block storage, and the tensor
kernels put in namespaces of their own (hearsay::cuda::ta, ::da, ::at: the files share names
such as kWarps). Covers tensor_attention, small_linear, decode_attention and attention."""
import pathlib
import sys

root = pathlib.Path(sys.argv[1])
out = pathlib.Path(sys.argv[2])


def device_code(path, stop_marker):
    text = path.read_text()
    text = "\n".join(line for line in text.split("\n") if not line.startswith(("#include", "#pragma")))
    if stop_marker:
        cut = text.index(stop_marker)
        text = text[:cut] + "\n} // namespace\n} // namespace hearsay::cuda\n"
    return text


ta = device_code(root / "kernels/tensor_attention.cu", "bool aligned16")
shared = "extern __shared__ __align__(128) unsigned char shared[];"
assert shared in ta, "tensor_attention.cu: the shared memory declaration changed; update extract.py"
ta = ta.replace(shared, "unsigned char* shared = g_shared;").replace("namespace hearsay::cuda {", "namespace hearsay::cuda::ta {")
ta = "namespace hearsay::cuda::ta { constexpr int kTensorAttentionHeadDim = 64; }\n" + ta
(out / "ta_kernel.inc").write_text(ta)
sl = device_code(root / "kernels/small_linear.cu", "template <int kRows>\nvoid launch")
sl_header = device_code(root / "kernels/small_linear.h", None)
sl_header = sl_header[:sl_header.index("// x [rows][in] against")] + "} // namespace hearsay::cuda\n"
(out / "sl_kernel.inc").write_text(device_code(root / "kernels/reduce.cuh", None) + "\n" + sl_header + sl)
da = device_code(root / "kernels/decode_attention.cu", "template <int kDims, class KV>\nvoid launchPartial")
shared = "extern __shared__ float shared[];"
assert shared in da, "decode_attention.cu: the shared memory declaration changed; update extract.py"
da = da.replace(shared, "float* shared = reinterpret_cast<float*>(g_shared);")
da = da.replace("namespace hearsay::cuda {", "namespace hearsay::cuda::da {")
header = device_code(root / "kernels/attention.h", None) + device_code(root / "kernels/decode_attention.h", None)
header = header.split("void attention(")[0] + "}\n"  # the structs and constants, not the host declarations
at = device_code(root / "kernels/attention.cu", "template <int kDims, class KV>\nvoid launchTyped(")
at = at.replace(shared, "float* shared = reinterpret_cast<float*>(g_shared);").replace("namespace hearsay::cuda {", "namespace hearsay::cuda::at {")
(out / "at_kernel.inc").write_text(header.replace("namespace hearsay::cuda {", "namespace hearsay::cuda::at {", 1) + "\n" + at)
(out / "da_kernel.inc").write_text(header.replace("namespace hearsay::cuda {", "namespace hearsay::cuda::da {", 1) + "\n" +
                                    "namespace hearsay::cuda::da {\nconstexpr int kDecodeAttentionMaxQueries = 8;\n"
                                    "constexpr int kDecodeAttentionSplitKeys = 32;\nconstexpr int kDecodeAttentionMaxHeadDim = 128;\n}\n" + da)
