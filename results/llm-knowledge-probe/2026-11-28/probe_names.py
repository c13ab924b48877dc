import json, time, urllib.request
from pathlib import Path
from runtime.llm.server import LocalLLMServer
SYS = ("You pick objects by a description. Answer with a Python list of the names that fit, "
       "chosen from the names given, spelled as given; [] if none fit.")
EX = [("blocks in the colors of the German flag", ["red block","gray block","yellow block","blue block"], "['red block', 'yellow block']  # the German flag: black, red, gold (yellow)"),]
qs = [("blocks of warm colors", ["red block","purple block","green block","orange block","blue block"]),
      ("the warm-colored blocks", ["yellow block","cyan block","pink block","brown block","red block"]),
      ("blocks of cool colors", ["red block","purple block","green block","orange block","blue block"]),
      ("blocks of primary colors", ["red block","purple block","green block","yellow block","blue block"]),
      ("the blocks in primary colours", ["orange block","white block","blue block","red block","cyan block"]),
      ("blocks in the colors of the French flag", ["red block","white block","green block","blue block","yellow block"]),
      ("blocks in the colors of the Italian flag", ["red block","white block","green block","blue block","yellow block"]),
      ]
with LocalLLMServer(Path("/root/.cache/codeplan/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")) as s:
    for d, names in qs:
        msgs=[{"role":"system","content":SYS}]
        for ed, en, ea in EX:
            msgs += [{"role":"user","content":f"Description: {ed}\nNames: {en}"},{"role":"assistant","content":ea}]
        msgs.append({"role":"user","content":f"Description: {d}\nNames: {names}"})
        body=json.dumps({"model":s.model_id,"messages":msgs,"temperature":0,"max_tokens":60}).encode()
        t=time.time()
        r=json.load(urllib.request.urlopen(urllib.request.Request(s.base_url+"/chat/completions",body,{"Content-Type":"application/json"}),timeout=300))
        print(round(time.time()-t,1), d, "->", r["choices"][0]["message"]["content"].strip().replace("\n"," | "))
