# Licensed under the Apache License, Version 2.0.
"""Small networks written out here as PyTorch modules, for operators and shapes the standard
torchvision definitions lack (``networks.NETWORKS`` names them). Each function returns a
builder or a module; nothing is downloaded."""

from __future__ import annotations

from functools import partial


def transformer_block(
    width: int = 768, heads: int = 12, norm_first: bool = False, activation: str = "relu"
):
    """One transformer encoder layer from torch.nn (BERT-base's by default: 768 wide, 12 heads,
    4x wide feed-forward)."""

    def build():
        import torch

        class Block(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = torch.nn.TransformerEncoderLayer(
                    width,
                    heads,
                    4 * width,
                    dropout=0.0,
                    activation=activation,
                    batch_first=True,
                    norm_first=norm_first,
                )

            def forward(self, x):
                return self.layer(x)

        return Block()

    return build


def mlp_mixer():
    """A small MLP-Mixer (Tolstikhin et al. 2021): 16x16 patches of a 224 image (196 tokens),
    256 channels, 4 layers of token- and channel-mixing MLPs."""
    from torch import nn

    class MixerLayer(nn.Module):
        def __init__(self, tokens=196, dim=256):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
            self.token_mlp = nn.Sequential(
                nn.Linear(tokens, 128), nn.GELU(), nn.Linear(128, tokens)
            )
            self.channel_mlp = nn.Sequential(nn.Linear(dim, 1024), nn.GELU(), nn.Linear(1024, dim))

        def forward(self, x):  # x: [B, tokens, dim]
            x = x + self.token_mlp(self.norm1(x).transpose(1, 2)).transpose(1, 2)
            return x + self.channel_mlp(self.norm2(x))

    class Mixer(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, 256, 16, stride=16)
            self.layers = nn.Sequential(*(MixerLayer() for _ in range(4)))
            self.head = nn.Linear(256, 1000)

        def forward(self, x):
            x = self.patch(x).flatten(2).transpose(1, 2)  # [B, 196, 256]
            return self.head(self.layers(x).mean(dim=1))

    return Mixer()


def lstm():
    """A two-layer LSTM (512 input, 512 hidden) unrolled over 8 steps with ``nn.LSTMCell``, so
    the program is its matrix products and gate activations."""
    import torch
    from torch import nn

    class Unrolled(nn.Module):
        def __init__(self):
            super().__init__()
            self.cells = nn.ModuleList([nn.LSTMCell(512, 512), nn.LSTMCell(512, 512)])
            self.head = nn.Linear(512, 1000)

        def forward(self, x):  # x: [B, steps, 512]
            h = [torch.zeros(x.shape[0], 512) for _ in self.cells]
            c = [torch.zeros(x.shape[0], 512) for _ in self.cells]
            for t in range(x.shape[1]):
                inp = x[:, t]
                for i, cell in enumerate(self.cells):
                    h[i], c[i] = cell(inp, (h[i], c[i]))
                    inp = h[i]
            return self.head(inp)

    return Unrolled()


def _conv_bn_relu(dims: int, cin: int, cout: int, **kw) -> list:
    """A ``dims``-D convolution without bias, its batch norm and a ReLU (layers to splice into
    an ``nn.Sequential``)."""
    from torch import nn

    conv, norm = getattr(nn, f"Conv{dims}d"), getattr(nn, f"BatchNorm{dims}d")
    return [conv(cin, cout, bias=False, **kw), norm(cout), nn.ReLU()]


def dilated_grouped_cnn():
    """Convolutions the standard networks lack: dilations 2 and 4, 4 and 8 groups, a 5x5 and a
    1x7 / 7x1 pair, on a 112x112 input."""
    from torch import nn

    block = partial(_conv_bn_relu, 2)
    return nn.Sequential(
        *block(3, 32, kernel_size=3, stride=2, padding=1),
        *block(32, 64, kernel_size=3, padding=2, dilation=2),
        *block(64, 64, kernel_size=3, padding=4, dilation=4),
        *block(64, 128, kernel_size=3, stride=2, padding=1, groups=4),
        *block(128, 128, kernel_size=5, padding=2, groups=8),
        *block(128, 96, kernel_size=(1, 7), padding=(0, 3)),
        *block(96, 96, kernel_size=(7, 1), padding=(3, 0)),
        *block(96, 192, kernel_size=3, stride=2, padding=2, dilation=2, groups=4),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(192, 1000),
    )


def tcn_conv1d():
    """1-D convolutions, which no other network here has: a temporal convolution network over
    80 mel channels and 400 frames (an audio front end), kernels 3, 5 and 7, dilations 1 to 8,
    a depthwise 1-D convolution with a pointwise one (as in Conformer blocks), and a strided
    downsampling."""
    from torch import nn

    block = partial(_conv_bn_relu, 1)
    return nn.Sequential(
        *block(80, 128, kernel_size=5, padding=2),
        *block(128, 128, kernel_size=3, padding=2, dilation=2),
        *block(128, 128, kernel_size=3, padding=4, dilation=4),
        *block(128, 256, kernel_size=3, stride=2, padding=8, dilation=8),
        *block(256, 256, kernel_size=7, padding=3, groups=256),
        *block(256, 256, kernel_size=1),
        *block(256, 512, kernel_size=5, stride=2, padding=2),
        nn.AdaptiveAvgPool1d(1),
        nn.Flatten(),
        nn.Linear(512, 35),
    )


def unet_small():
    """An encoder-decoder the classifiers lack: transposed convolutions that upsample, group
    norms, and skip connections concatenated on the channels (a small U-Net, 128x128 input,
    two levels down and up, one output channel a pixel)."""
    import torch
    from torch import nn

    def double(cin, cout):
        return nn.Sequential(
            nn.Conv2d(cin, cout, 3, padding=1),
            nn.GroupNorm(8, cout),
            nn.SiLU(),
            nn.Conv2d(cout, cout, 3, padding=1),
            nn.GroupNorm(8, cout),
            nn.SiLU(),
        )

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.down1, self.down2, self.mid = double(3, 32), double(32, 64), double(64, 128)
            self.pool = nn.MaxPool2d(2)
            self.up2 = nn.ConvTranspose2d(128, 64, 2, stride=2)
            self.dec2 = double(128, 64)
            self.up1 = nn.ConvTranspose2d(64, 32, 4, stride=2, padding=1)
            self.dec1 = double(64, 32)
            self.out = nn.Conv2d(32, 1, 1)

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(self.pool(d1))
            m = self.mid(self.pool(d2))
            u2 = self.dec2(torch.cat([self.up2(m), d2], dim=1))
            u1 = self.dec1(torch.cat([self.up1(u2), d1], dim=1))
            return self.out(u1)

    return UNet()


def tiny_cnn():
    """Two small conv layers and a classifier: a network that tunes in minutes (tests, demos)."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(8, 10),
    )
