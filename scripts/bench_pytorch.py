#!/usr/bin/env python3
"""The YINSH Zero network in plain PyTorch, measured like `yinsh bench model`.

Builds the architecture of model/config.go (same module names as the checkpoint tensors), runs
batched inference with batch norm folded into the convolutions (what both Go backends do) under
torch.inference_mode, and training steps in batch-norm training mode with the same losses (masked
policy cross-entropy + value_weight * WDL cross-entropy, L2 reported) and torch.optim.SGD with
Nesterov momentum 0.9 and weight decay 1e-4 on conv/fc weights (model.DefaultSGD). Measurement
protocol as in model/torch.Bench: warm-up, then 5 rounds alternating inference and a raw float32
matmul on the 3x3 tower convolution's GEMM shape, best round of each; training best of 5 rounds.

Prints exactly the lines of `yinsh bench model`:
    positions/s: <float>
    train-samples/s: <float>
    gflops: <float>
    sgemm-gflops: <float>

Usage: python bench_pytorch.py [--net small] [--batch 64] [--time 3] [--threads N] [--device cpu]
"""
import argparse
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.fusion import fuse_conv_bn_eval

NUM_PLANES = 15  # env.NumPlanes (encoding version 1)
NUM_ACTIONS = 2142
CELLS = 121
PRESETS = {
    "tiny": dict(channels=16, blocks=2, policy_channels=2, value_channels=1, value_hidden=32),
    "small": dict(channels=64, blocks=6, policy_channels=4, value_channels=2, value_hidden=64),
}


class ConvBN(nn.Module):
    def __init__(self, cin, cout, k):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, k, padding=(k - 1) // 2, bias=False)
        self.bn = nn.BatchNorm2d(cout)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)


class PolicyHead(ConvBN):
    def __init__(self, c, p):
        super().__init__(c, p, 1)
        self.fc = nn.Linear(p * CELLS, NUM_ACTIONS)


class ValueHead(ConvBN):
    def __init__(self, c, v, hidden):
        super().__init__(c, v, 1)
        self.fc1 = nn.Linear(v * CELLS, hidden)
        self.fc2 = nn.Linear(hidden, 3)


class Net(nn.Module):
    """Training form: state_dict names match the checkpoint's (plus num_batches_tracked)."""

    def __init__(self, channels, blocks, policy_channels, value_channels, value_hidden):
        super().__init__()
        self.stem = ConvBN(NUM_PLANES, channels, 3)
        self.tower = nn.ModuleList(Block(channels) for _ in range(blocks))
        self.policy = PolicyHead(channels, policy_channels)
        self.value = ValueHead(channels, value_channels, value_hidden)

    def forward(self, x):
        x = F.relu(self.stem.bn(self.stem.conv(x)), inplace=True)
        for b in self.tower:
            y = F.relu(b.bn1(b.conv1(x)), inplace=True)
            y = b.bn2(b.conv2(y))
            y += x
            x = F.relu(y, inplace=True)
        p = F.relu(self.policy.bn(self.policy.conv(x)), inplace=True).flatten(1)
        v = F.relu(self.value.bn(self.value.conv(x)), inplace=True).flatten(1)
        v = F.relu(self.value.fc1(v), inplace=True)
        return self.policy.fc(p), self.value.fc2(v)


class Folded(nn.Module):
    """Inference form: every conv + batch norm pair folded into one conv with bias."""

    def __init__(self, net):
        super().__init__()
        net = net.eval()
        self.stem = fuse_conv_bn_eval(net.stem.conv, net.stem.bn)
        self.tower = nn.ModuleList(
            nn.ModuleList([fuse_conv_bn_eval(b.conv1, b.bn1), fuse_conv_bn_eval(b.conv2, b.bn2)]) for b in net.tower
        )
        self.pconv = fuse_conv_bn_eval(net.policy.conv, net.policy.bn)
        self.pfc = net.policy.fc
        self.vconv = fuse_conv_bn_eval(net.value.conv, net.value.bn)
        self.vfc1, self.vfc2 = net.value.fc1, net.value.fc2

    def forward(self, x):
        x = F.relu(self.stem(x), inplace=True)
        for c1, c2 in self.tower:
            y = F.relu(c1(x), inplace=True)
            y = c2(y)
            y += x
            x = F.relu(y, inplace=True)
        p = F.relu(self.pconv(x), inplace=True).flatten(1)
        v = F.relu(self.vconv(x), inplace=True).flatten(1)
        v = F.relu(self.vfc1(v), inplace=True)
        return self.pfc(p), self.vfc2(v)


def flops_per_position(c):
    k = 9 * CELLS
    f = 2 * NUM_PLANES * c["channels"] * k
    f += 2 * 2 * c["blocks"] * c["channels"] ** 2 * k
    f += 2 * c["channels"] * (c["policy_channels"] + c["value_channels"]) * CELLS
    f += 2 * c["policy_channels"] * CELLS * NUM_ACTIONS
    f += 2 * c["value_channels"] * CELLS * c["value_hidden"]
    f += 2 * c["value_hidden"] * 3
    return f


def losses(logits, wdl, illegal, tp, tw, n):
    logits = logits.masked_fill(illegal, float("-inf"))
    logp = F.log_softmax(logits, dim=1).masked_fill(illegal, 0.0)
    pl = -(logp * tp).sum() / n
    vl = -(F.log_softmax(wdl, dim=1) * tw).sum() / n
    return pl, vl


def time_it(seconds, f, sync):
    start = time.perf_counter()
    calls = 0
    while True:
        f()
        sync()
        calls += 1
        el = time.perf_counter() - start
        if el >= seconds:
            return calls, el


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--net", default="small", choices=sorted(PRESETS))
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--time", type=float, default=3.0, help="seconds for each of inference and training")
    ap.add_argument("--threads", type=int, default=0, help="intra-op threads (0: PyTorch default)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    dev = torch.device(args.device)
    sync = (lambda: torch.cuda.synchronize(dev)) if dev.type == "cuda" else (lambda: None)
    cfg = PRESETS[args.net]
    n = args.batch

    # Random inputs of the right shapes and kinds: binary planes, ~5% legal actions, one-hot targets.
    g = torch.Generator().manual_seed(2)
    planes = (torch.rand(n, NUM_PLANES, 11, 11, generator=g) < 0.2).float()
    legal = torch.rand(n, NUM_ACTIONS, generator=g) < 0.05
    target = torch.randint(0, NUM_ACTIONS, (n,), generator=g)
    legal[torch.arange(n), target] = True
    tp = torch.zeros(n, NUM_ACTIONS)
    tp[torch.arange(n), target] = 1
    tw = torch.zeros(n, 3)
    tw[torch.arange(n), torch.arange(n) % 3] = 1
    planes, illegal, tp, tw = planes.to(dev), (~legal).to(dev), tp.to(dev), tw.to(dev)

    net = Net(**cfg).to(dev)
    rounds = args.rounds
    slice_ = args.time / rounds

    # Inference: as the Go backends do, Predict = upload planes, forward on folded weights, copy the
    # policy logits and WDL back to host memory, mask illegal actions.
    host_planes = planes.cpu()
    host_illegal = illegal.cpu()

    def predict(model):
        with torch.inference_mode():
            logits, wdl = model(host_planes.to(dev))
            logits = logits.cpu().masked_fill_(host_illegal, float("-inf"))
            return logits, wdl.cpu()

    folded = Folded(net).to(dev)
    m, k, nn_ = cfg["channels"], 9 * cfg["channels"], n * CELLS
    a = torch.rand(m, k, device=dev)
    b = torch.rand(k, nn_, device=dev)
    c = torch.empty(m, nn_, device=dev)

    def gemm():
        torch.mm(a, b, out=c)

    for f in (lambda: predict(folded), lambda: predict(folded), gemm):
        f()
    sync()
    pos, sgemm = 0.0, 0.0
    for _ in range(rounds):
        calls, el = time_it(slice_, lambda: predict(folded), sync)
        pos = max(pos, calls * n / el)
        calls, el = time_it(slice_, gemm, sync)
        sgemm = max(sgemm, calls * 2 * m * k * nn_ / el / 1e9)

    # Training: model.DefaultSGD; decayed tensors are conv and fc weights (not batch norm, not biases).
    net.train()
    decayed = [p for name, p in net.named_parameters() if name.endswith(".weight") and p.dim() > 1]
    other = [p for name, p in net.named_parameters() if not (name.endswith(".weight") and p.dim() > 1)]
    wd = 1e-4
    opt = torch.optim.SGD(
        [{"params": decayed, "weight_decay": wd}, {"params": other, "weight_decay": 0.0}],
        lr=0.02, momentum=0.9, nesterov=True,
    )
    value_weight = 1.0

    def train_step():
        # as TrainStep: upload the batch, forward, losses, backward, update, report the loss parts
        x, ill, p_, w_ = host_planes.to(dev), host_illegal.to(dev), tp, tw
        logits, wdl = net(x)
        pl, vl = losses(logits, wdl, ill, p_, w_, n)
        opt.zero_grad(set_to_none=False)
        (pl + value_weight * vl).backward()
        with torch.no_grad():
            l2 = wd / 2 * sum(p.square().sum(dtype=torch.float64) for p in decayed).item()
        opt.step()
        return pl.item(), vl.item(), l2

    train_step()
    sync()
    train = 0.0
    for _ in range(rounds):
        calls, el = time_it(slice_, train_step, sync)
        train = max(train, calls * n / el)

    print(f"positions/s: {pos:.1f}")
    print(f"train-samples/s: {train:.1f}")
    print(f"gflops: {pos * flops_per_position(cfg) / 1e9:.2f}")
    print(f"sgemm-gflops: {sgemm:.2f}")
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, device {dev}, net {args.net}, batch {n}",
          file=sys.stderr)


if __name__ == "__main__":
    main()
