"""Neuro-symbolic visual reasoning: detect objects in the image, answer by running the program.

As NS-VQA does for CLEVR, the image is parsed into a symbolic scene (objects with type, color
and 3-D position) and the question program is executed on it, so the reasoner inherits the
question language's exact semantics and is right whenever the parse is right.
"""
