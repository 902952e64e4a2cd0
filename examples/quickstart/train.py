"""A tiny model to show the env works: `torchenv run -- python train.py`."""
import numpy as np
import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.from_numpy(np.random.default_rng(0).normal(size=(512, 8)).astype("float32")).to(device)
y = (x.sum(dim=1, keepdim=True) > 0).float()
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1)).to(device)
opt = torch.optim.Adam(model.parameters(), lr=0.05)
for step in range(200):
    loss = torch.nn.functional.binary_cross_entropy_with_logits(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"torch {torch.__version__} on {device}: final loss {loss.item():.4f}")
