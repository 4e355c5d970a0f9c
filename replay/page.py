"""stub"""
class HtmlPage: pass
