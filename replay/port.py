"""stub"""
def compare_with_port(*a): return 0
