import json, time, urllib.request
from pathlib import Path
from runtime.llm.server import LocalLLMServer
qs = ["warm colors","cool colors","primary colors","the colors of the French flag","the colors of the Italian flag","the colors of the German flag","the colors of the Irish flag", "the colors of the Ukrainian flag", "the colors of the rainbow", "secondary colors", "the colors of the Japanese flag", "the colors of the Swedish flag"]
forms = {
 "bare": lambda d: [{"role":"user","content":f"Name {d}. Answer with the color names only, separated by commas."}],
 "sys": lambda d: [{"role":"system","content":"You are an expert on colors. Answer with the basic color names only (such as red, orange, yellow, green, blue, purple, pink, brown, white, gray, black, cyan), separated by commas."},{"role":"user","content":f"What are {d}?"}],
}
with LocalLLMServer(Path("/root/.cache/codeplan/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf")) as s:
  for fname, f in forms.items():
    for d in qs:
        body=json.dumps({"model":s.model_id,"messages":f(d),"temperature":0,"max_tokens":40}).encode()
        r=json.load(urllib.request.urlopen(urllib.request.Request(s.base_url+"/chat/completions",body,{"Content-Type":"application/json"}),timeout=300))
        print(fname, d, "->", r["choices"][0]["message"]["content"].strip().replace("\n"," | "))
