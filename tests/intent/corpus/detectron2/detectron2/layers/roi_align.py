# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
from torch import nn
from torchvision.ops import roi_align as tv_roi_align
