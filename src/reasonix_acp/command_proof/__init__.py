"""The command proof: the small shell language the permission gate can prove safe, read as bash
reads it (lexer.py, parser.py), its words and names (words.py, names.py), what each simple
command runs (simple_commands.py), the proof of a whole line (proof.py), the kernel's paths
(kernel_paths.py), and the two readings of any line the gate judges (command_line.py).

It imports nothing else of the agent: a language of its own, below the tools that run commands.
"""
