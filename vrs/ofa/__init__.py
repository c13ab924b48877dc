"""The OFA-style VQA reasoner: a ResNet stem + one transformer encoder + an answer decoder.

Why a learned reasoner beside the oracle and the neuro-symbolic one: it answers from pixels
alone, end to end, as the seed paper's OFA model did. `config` (sizes, presets), `tokenizer`
(BPE over the question language), `model` (the network), `trie` (decoding that cannot leave
the answer vocabulary), `checkpoint` (save / load a directory), `reasoner` (the Reasoner seam;
`load_ofa_reasoner` is what `vrs.loading` calls for `"kind": "ofa-vqa"`).
"""
