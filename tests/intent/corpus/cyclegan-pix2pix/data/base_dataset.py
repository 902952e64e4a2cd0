"""This module implements an abstract base class (ABC) 'BaseDataset' for datasets."""
import random
import numpy as np
import torch.utils.data as data
from PIL import Image
import torchvision.transforms as transforms
from abc import ABC, abstractmethod
