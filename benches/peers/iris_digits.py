#!/usr/bin/env python3
"""PyTorch peer of diffx's benches: the Iris experiment (cargo bench --bench iris, "iris 100 epochs")
and one digits epoch (cargo bench --bench mlp, "digits one epoch"), float32, eager mode.

    pip install torch
    python3 benches/peers/iris_digits.py [--repeats 20] [--threads 2] [--data-dir data]
"""
import argparse
import csv
import os
import statistics
import sys
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def read_csv(path):
    """Rows of (features, label) from scikit-learn's iris.csv or digits.csv (header line skipped)."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r][1:]
    return [[float(v) for v in r[:-1]] for r in rows], [int(r[-1]) for r in rows]


def split(labels, test_fraction, gen):
    """Stratified split like diffx's train_test_split: round(n_c * fraction) of each class to test."""
    train, test = [], []
    for c in sorted(set(labels)):
        idx = [i for i, y in enumerate(labels) if y == c]
        idx = [idx[j] for j in torch.randperm(len(idx), generator=gen).tolist()]
        n_test = int(len(idx) * test_fraction + 0.5)
        test += idx[:n_test]
        train += idx[n_test:]
    return torch.tensor(train), torch.tensor(test)


def load(path, seed):
    x, y = read_csv(path)
    x, y = torch.tensor(x, dtype=torch.float32), torch.tensor(y)
    tr, te = split(y.tolist(), 0.2, torch.Generator().manual_seed(seed))
    return x[tr], y[tr], x[te], y[te]


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def median_ms(times):
    return statistics.median(times) * 1e3


def iris(args):
    xtr, ytr, xte, yte = load(os.path.join(args.data_dir, "iris.csv"), args.seed)
    mean, std = xtr.mean(0), xtr.std(0, unbiased=False)  # training mean, population std
    xtr, xte = (xtr - mean) / std, (xte - mean) / std

    def train():
        torch.manual_seed(args.seed)  # every repeat trains the same model
        model = nn.Sequential(nn.Linear(4, 10), nn.Tanh(), nn.Linear(10, 3))
        opt = torch.optim.SGD(model.parameters(), lr=0.05)
        start = time.perf_counter()
        for _ in range(100):  # full batch: forward, backward, step
            opt.zero_grad()
            F.cross_entropy(model(xtr), ytr).backward()
            opt.step()
        return time.perf_counter() - start, model

    train()  # warm-up
    times = []
    for _ in range(args.repeats):
        elapsed, model = train()
        times.append(elapsed)
    print(f"iris: 100 epochs in {median_ms(times):.1f} ms (median of {args.repeats}), "
          f"train acc {accuracy(model, xtr, ytr):.2f}, test acc {accuracy(model, xte, yte):.2f}")


def digits(args):
    xtr, ytr, xte, yte = load(os.path.join(args.data_dir, "digits.csv"), args.seed)
    xtr, xte = xtr / 16.0, xte / 16.0

    def fresh():
        torch.manual_seed(args.seed)  # same initial weights and batch order each time
        model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
        return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

    def epoch(model, opt):
        order = torch.randperm(len(ytr))  # shuffled minibatches of 32, the last one partial
        for i in range(0, len(ytr), 32):
            b = order[i:i + 32]
            opt.zero_grad()
            F.cross_entropy(model(xtr[b]), ytr[b]).backward()
            opt.step()

    epoch(*fresh())  # warm-up
    times = []
    for _ in range(args.repeats):
        model, opt = fresh()  # like the criterion bench: a fresh model each time, not timed
        start = time.perf_counter()
        epoch(model, opt)
        times.append(time.perf_counter() - start)
    model, opt = fresh()
    for _ in range(20):
        epoch(model, opt)
    print(f"digits: one epoch in {median_ms(times):.1f} ms (median of {args.repeats}), "
          f"test acc after 20 epochs {accuracy(model, xte, yte):.2f} "
          f"({len(ytr)} train, {len(yte)} test)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeats", type=int, default=10, help="timed runs per task (median reported)")
    p.add_argument("--threads", type=int, default=2, help="torch.set_num_threads")
    p.add_argument("--data-dir", default=os.path.join(ROOT, "data"), help="folder with iris.csv, digits.csv")
    p.add_argument("--seed", type=int, default=0, help="seed of the splits, weights and batch order")
    args = p.parse_args()

    global torch, nn, F
    try:
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")  # numpy is not needed
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError:
        print("PyTorch is not installed: pip install torch")
        return 0
    torch.set_num_threads(args.threads)
    torch.set_default_dtype(torch.float32)
    print(f"pytorch {torch.__version__}, threads {torch.get_num_threads()}")
    iris(args)
    digits(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
