#!/usr/bin/env python3
"""Minimal YINSH engine protocol client: the engine plays white, random legal actions play black."""
import os
import random
import subprocess


class Engine:
    def __init__(self, *args):
        exe = os.environ.get("YINSH", "yinsh")
        self.proc = subprocess.Popen([exe, "engine", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True)
        self.id = 0

    def send(self, command):
        """Sends one command and returns its result; raises RuntimeError on a '?' answer."""
        self.id += 1
        self.proc.stdin.write(f"{self.id} {command}\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise EOFError("engine exited")
            line = line.rstrip("\n")
            if line == "":
                if lines:          # the empty line ends the answer
                    break
                continue
            lines.append(line)
        status, rest = lines[0][0], lines[0][1:]
        ident, _, first = rest.partition(" ")
        assert ident == str(self.id), (ident, self.id)
        text = "\n".join([first] + lines[1:])
        if status == "?":
            raise RuntimeError(f"{command!r}: {text}")
        return text

    def close(self):
        self.send("quit")
        self.proc.wait()


engine = Engine("--player", "heuristic", "--seed", "1")
print(engine.send("name"), engine.send("version"))
engine.send("newgame blitz")
rng = random.Random(1)
actions = 0
while (turn := engine.send("turn")) != "- over":
    side, phase = turn.split()             # e.g. "w move", "b remove-row"
    if side == "w":
        engine.send("genmove")             # the engine chooses and plays
    else:
        engine.send("play " + rng.choice(engine.send("legal").split()))
    actions += 1
print(engine.send("showboard"))
print("result:", engine.send("result"), "after", actions, "actions")
try:
    engine.send("play e5")
except RuntimeError as err:
    print("error:", err)
engine.close()
