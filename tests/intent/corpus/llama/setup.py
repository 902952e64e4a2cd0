# Copyright (c) Meta Platforms, Inc. and affiliates.

from setuptools import setup, find_packages

setup(name="llama", version="0.0.0", packages=find_packages())
